// One session's turn chain: the session, its turns linked by NEXT in order, and each turn's tool
// calls (HAS_TOOL_CALL, in call order) with their outcome.
// Parameters: $sessionId, e.g.  :param sessionId => 'the-session-id'
// Graph: (:Session)-[:HAS_TURN]->(:Turn)-[:NEXT]->(:Turn), (:Turn)-[:HAS_TOOL_CALL]->(:ToolCall);
// table: one row per turn, in order. The Browser draws at most 300 nodes by default
// (:config initialNodeDisplay: 1000 raises it).
MATCH turn = (s:Session {id: $sessionId})-[:HAS_TURN]->(t:Turn)
OPTIONAL MATCH next = (t)-[:NEXT]->(:Turn)
RETURN turn, next,
       COLLECT {
         MATCH call = (t)-[r:HAS_TOOL_CALL]->(:ToolCall)
         RETURN call ORDER BY r.order
       } AS toolCalls,
       t.index AS index, left(t.userMessage, 120) AS userMessage,
       COLLECT {
         MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall)
         RETURN c.name + CASE c.success WHEN false THEN ' (failed)' ELSE '' END ORDER BY r.order
       } AS tools
ORDER BY t.index
