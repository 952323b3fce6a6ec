// Delete a session with its turns, tool calls and summaries; drop its directory if now empty.
MATCH (s:Session {id: $id})
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
OPTIONAL MATCH (t)-[:HAS_TOOL_CALL]->(c:ToolCall)
WITH s, collect(DISTINCT t) AS turns, collect(DISTINCT c) AS calls
OPTIONAL MATCH (s)-[:HAS_SUMMARY]->(m:Summary)
WITH s, turns, calls, collect(DISTINCT m) AS summaries
OPTIONAL MATCH (d:Directory)-[:HAS_SESSION]->(s)
WITH s, turns, calls, summaries, d, size(turns) AS turnCount
FOREACH (n IN calls | DETACH DELETE n)
FOREACH (n IN turns | DETACH DELETE n)
FOREACH (n IN summaries | DETACH DELETE n)
DETACH DELETE s
WITH d, turnCount
CALL (d) {
  WITH d WHERE d IS NOT NULL AND NOT EXISTS { (d)-[:HAS_SESSION]->() }
  DELETE d
}
RETURN turnCount
