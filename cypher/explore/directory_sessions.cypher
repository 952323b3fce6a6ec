// The sessions of one working directory, newest activity first, with the first and the last user
// message of each (the Directory node is the directory the coding CLI ran in; a project's other
// directories have Directory nodes of their own).
// Parameters: $cwd, the directory's absolute path, e.g.  :param cwd => '/home/me/code/shop'
// Graph: (:Directory)-[:HAS_SESSION]->(:Session); table: one row per session.
MATCH p = (d:Directory {path: $cwd})-[:HAS_SESSION]->(s:Session)
OPTIONAL MATCH (first:Turn {sessionId: s.id, index: 1})
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: s.turnCount})
RETURN p, s.id AS sessionId, s.agent AS agent, s.title AS title, s.turnCount AS turns,
       s.startedAt AS startedAt, s.lastActivityAt AS lastActivity,
       left(first.userMessage, 120) AS firstMessage, left(last.userMessage, 120) AS lastMessage
ORDER BY s.lastActivityAt DESC
