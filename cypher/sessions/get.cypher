MATCH (s:Session {id: $id})
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session
