// The memory service's session list: the most recently active sessions of the whole memory (or of
// one directory path and everything under it), newest first, with the last user message.
MATCH (s:Session)
WHERE $path IS NULL OR s.cwd = $path OR s.cwd STARTS WITH $prefix
WITH s ORDER BY s.lastActivityAt DESC
LIMIT $limit
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session,
       left(last.userMessage, $previewChars) AS lastMessage
