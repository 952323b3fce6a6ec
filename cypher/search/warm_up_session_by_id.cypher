// The session a warm-up searches around, given by id, with its last user message.
MATCH (s:Session {id: $id})
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN s {.id, .cwd, .projectPath, .lastActivityAt} AS session, left(last.userMessage, 2000) AS lastMessage
