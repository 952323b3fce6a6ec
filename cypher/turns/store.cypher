// Append one turn (with its tool calls) to a session, in one write transaction.
// Incrementing s.turnCount first takes the session's write lock, so concurrent writers to the same
// session are serialised and indexes stay unique and contiguous (also enforced by the
// (sessionId, index) uniqueness constraint).
MATCH (s:Session {id: $sessionId})
SET s.turnCount = coalesce(s.turnCount, 0) + 1
WITH s, s.turnCount AS idx
SET s.lastActivityAt = CASE WHEN s.lastActivityAt IS NULL OR s.lastActivityAt < $timestamp
                            THEN $timestamp ELSE s.lastActivityAt END
CREATE (t:Turn {
  id: $turnId,
  sessionId: s.id,
  cwd: s.cwd,
  projectPath: s.projectPath,
  index: idx,
  userMessage: $userMessage,
  assistantMessage: $assistantMessage,
  timestamp: $timestamp,
  charCount: $charCount,
  embedState: 'pending',
  summaryState: 'pending'
})
CREATE (s)-[:HAS_TURN {index: idx}]->(t)
WITH s, t, idx
CALL (s, t, idx) {
  MATCH (prev:Turn {sessionId: s.id, index: idx - 1})
  CREATE (prev)-[:NEXT]->(t)
}
FOREACH (c IN $toolCalls |
  CREATE (t)-[:HAS_TOOL_CALL {order: c.order}]->(:ToolCall {
    id: c.id, sessionId: s.id, name: c.name, args: c.args, result: c.result, success: c.success,
    durationMs: c.durationMs, timestamp: c.timestamp, sourceId: c.sourceId
  })
)
RETURN t.id AS id, t.index AS index
