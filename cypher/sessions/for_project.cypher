// Sessions of one project (git root), newest activity first, with the last user message as a preview.
MATCH (s:Session {projectPath: $projectPath})
WITH s ORDER BY s.lastActivityAt DESC
LIMIT $limit
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session,
       left(last.userMessage, $previewChars) AS lastMessage
