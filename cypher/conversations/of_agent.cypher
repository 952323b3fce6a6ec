// The conversations of one agent (optionally of one channel and/or one user), latest opened first.
MATCH (c:Conversation {agent: $agent})
WHERE ($channel IS NULL OR c.channel = $channel) AND ($user IS NULL OR c.user = $user)
OPTIONAL MATCH (c)-[:HAS_SESSION]->(s:Session)
WITH c, count(s) AS sessions
RETURN c {.key, .agent, .channel, .user, .createdAt, .lastOpenedAt} AS conversation, sessions
ORDER BY c.lastOpenedAt DESC
LIMIT $limit
