// A chat agent's conversations, one per (channel, user), with their sessions (a new session starts after
// a silence) and each session's turn count.
// Parameters: $agent, e.g.  :param agent => 'pet'
// Graph: (:Conversation)-[:HAS_SESSION]->(:Session); table: one row per session, latest first.
MATCH p = (c:Conversation {agent: $agent})-[:HAS_SESSION]->(s:Session)
RETURN p, c.channel AS channel, c.user AS user, s.id AS session, s.startedAt AS startedAt,
       s.lastActivityAt AS lastActivityAt, s.turnCount AS turns
ORDER BY s.lastActivityAt DESC
LIMIT 200
