// The sessions of one conversation, newest activity first.
MATCH (:Conversation {key: $key})-[:HAS_SESSION]->(s:Session)
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session
ORDER BY s.lastActivityAt DESC
LIMIT $limit
