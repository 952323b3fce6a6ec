// All turns of a session in order, each with its tool calls in order (embeddings left out).
MATCH (s:Session {id: $id})-[:HAS_TURN]->(t:Turn)
RETURN t {.id, .sessionId, .index, .userMessage, .assistantMessage, .timestamp, .charCount, .sourceId} AS turn,
       COLLECT {
         MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall)
         RETURN c {.id, .name, .args, .result, .success, .durationMs, .timestamp, .sourceId, order: r.order}
         ORDER BY r.order
       } AS toolCalls
ORDER BY t.index
