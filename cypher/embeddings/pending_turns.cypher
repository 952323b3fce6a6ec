// Turns waiting for an embedding (oldest first); only those of directory $path and below unless $path is null, with the text the embedder needs (capped).
MATCH (t:Turn {embedState: 'pending'})
WHERE $path IS NULL OR t.cwd = $path OR t.cwd STARTS WITH $prefix
WITH t ORDER BY t.timestamp
LIMIT $limit
RETURN t.id AS id, t.sessionId AS sessionId,
       left(t.userMessage, $maxChars) AS userMessage,
       left(t.assistantMessage, $maxChars) AS assistantMessage,
       COLLECT { MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall) RETURN c.name ORDER BY r.order } AS tools
