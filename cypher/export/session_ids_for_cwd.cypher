// Export: the ids of the sessions of one working directory, oldest first.
MATCH (s:Session {cwd: $cwd})
RETURN s.id AS id
ORDER BY s.startedAt, s.id
