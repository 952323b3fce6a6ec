// The session a warm-up searches around: the most recently active one (in the order of the
// session_last_activity index), with its last user message (its words fill the warm-up questions).
MATCH (s:Session)
WHERE s.lastActivityAt IS NOT NULL
WITH s ORDER BY s.lastActivityAt DESC
LIMIT 1
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN s {.id, .cwd, .projectPath, .lastActivityAt} AS session, left(last.userMessage, 2000) AS lastMessage
