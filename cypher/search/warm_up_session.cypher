// The session a warm-up searches around: the one given ($id), else the most recently active one,
// with its last user message (its words fill the warm-up questions).
MATCH (s:Session)
WHERE $id IS NULL OR s.id = $id
WITH s ORDER BY s.lastActivityAt DESC
LIMIT 1
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN s {.id, .cwd, .projectPath, .lastActivityAt} AS session, left(last.userMessage, 2000) AS lastMessage
