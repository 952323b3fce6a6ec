// Create a session (or return the existing one with this id) and file it under its directory.
MERGE (s:Session {id: $id})
ON CREATE SET
  s.cwd = $cwd,
  s.projectPath = $projectPath,
  s.agent = $agent,
  s.title = $title,
  s.startedAt = $startedAt,
  s.lastActivityAt = $startedAt,
  s.turnCount = 0
WITH s
MERGE (d:Directory {path: s.cwd})
MERGE (d)-[:HAS_SESSION]->(s)
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session
