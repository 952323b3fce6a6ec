// The current session of a conversation (agent, channel, user): its latest session when that one was active
// at or after $cutoff, else a new session ($newId) filed under the conversation and under its directory.
// The conversation node is written first, so concurrent openers of one conversation take turns on its lock
// and never open two sessions for the same gap.
MERGE (c:Conversation {key: $key})
ON CREATE SET c.agent = $agent, c.channel = $channel, c.user = $user, c.createdAt = $at
SET c.lastOpenedAt = $at
WITH c
OPTIONAL MATCH (c)-[:HAS_SESSION]->(prev:Session)
WITH c, prev ORDER BY prev.lastActivityAt DESC LIMIT 1
CALL (c, prev) {
  WITH c, prev WHERE prev IS NOT NULL AND prev.lastActivityAt >= $cutoff
  RETURN prev AS s, false AS created
  UNION
  WITH c, prev WHERE prev IS NULL OR prev.lastActivityAt < $cutoff
  CREATE (s:Session {id: $newId, cwd: $cwd, projectPath: $projectPath, agent: $agent, channel: $channel,
                     user: $user, title: $title, startedAt: $at, lastActivityAt: $at, turnCount: 0})
  MERGE (d:Directory {path: $cwd})
  MERGE (d)-[:HAS_SESSION]->(s)
  CREATE (c)-[:HAS_SESSION]->(s)
  RETURN s, true AS created
}
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session, created
