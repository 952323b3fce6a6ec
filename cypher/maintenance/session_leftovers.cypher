// What is left in the graph of a session (after delete_session everything is 0).
RETURN COUNT { MATCH (t:Turn {sessionId: $sessionId}) } AS turns,
       COUNT { MATCH (c:ToolCall {sessionId: $sessionId}) } AS toolCalls,
       COUNT { MATCH (m:Summary {sessionId: $sessionId}) } AS summaries,
       COUNT { MATCH (s:Session {id: $sessionId}) } AS sessions
