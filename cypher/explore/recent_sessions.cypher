// The most recently active sessions in the whole memory, with their directories: start here to
// find a session id or a directory path for the other explore queries.
// Parameters: none.
// Graph: (:Directory)-[:HAS_SESSION]->(:Session); table: one row per session, newest first.
MATCH p = (d:Directory)-[:HAS_SESSION]->(s:Session)
RETURN p, d.path AS directory, s.id AS sessionId, s.agent AS agent, s.title AS title,
       s.turnCount AS turns, s.lastActivityAt AS lastActivity
ORDER BY s.lastActivityAt DESC
LIMIT 25
