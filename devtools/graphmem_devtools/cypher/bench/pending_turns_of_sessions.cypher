// Benchmarks only (graphmem bench import): the pending turns of the given sessions (and only those),
// with the text the embedder needs (capped), as embeddings/pending_turns returns them.
UNWIND $sessionIds AS sid
MATCH (t:Turn {sessionId: sid})
WHERE t.embedState = 'pending'
WITH t ORDER BY t.sessionId, t.index
LIMIT $limit
RETURN t.id AS id,
       left(t.userMessage, $maxChars) AS userMessage,
       left(t.assistantMessage, $maxChars) AS assistantMessage,
       COLLECT { MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall) RETURN c.name ORDER BY r.order } AS tools
