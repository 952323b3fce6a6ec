// Export: the ids of every session, oldest first.
MATCH (s:Session)
RETURN s.id AS id
ORDER BY s.startedAt, s.id
