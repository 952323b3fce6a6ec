// The last $limit turns of a session, newest first, with the names of their tool calls.
MATCH (s:Session {id: $sessionId})
MATCH (t:Turn {sessionId: s.id})
WHERE t.index > s.turnCount - $limit
RETURN t {.id, .sessionId, .index, .userMessage, .assistantMessage, .timestamp, .charCount, .sourceId} AS turn,
       COLLECT {
         MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall)
         RETURN c {.id, .name, .args, .result, .success, .durationMs, .timestamp, .sourceId, order: r.order}
         ORDER BY r.order
       } AS toolCalls
ORDER BY t.index DESC
