// Benchmarks only: the ids of a session's turns after a given index, in order (to attach synthetic vectors).
MATCH (t:Turn {sessionId: $sessionId})
WHERE t.index > $after
RETURN t.id AS id, t.index AS index
ORDER BY t.index
