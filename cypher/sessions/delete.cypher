// Delete a session with its turns, tool calls, summaries, summary jobs and items; drop its directory and the
// files only its tool calls touched.
MATCH (s:Session {id: $id})
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
OPTIONAL MATCH (t)-[:HAS_TOOL_CALL]->(c:ToolCall)
WITH s, collect(DISTINCT t) AS turns, collect(DISTINCT c) AS calls
OPTIONAL MATCH (s)-[:HAS_SUMMARY]->(m:Summary)
WITH s, turns, calls, collect(DISTINCT m) AS summaries
// the summarizer worker's queued jobs and planning cursors of this session
OPTIONAL MATCH (j:SummaryJob {sessionId: s.id})
WITH s, turns, calls, summaries, collect(j) AS jobs
OPTIONAL MATCH (q:SummaryCursor {sessionId: s.id})
WITH s, turns, calls, summaries, jobs, collect(q) AS cursors
WITH s, turns, calls, summaries + jobs + cursors AS summaries
// facts scoped to this session (every version), its injection logs and its fact scope node
OPTIONAL MATCH (f:Fact {scopeKey: 'session:' + s.id})
WITH s, turns, calls, summaries, collect(f) AS facts
WITH s, turns, calls, summaries + facts AS summaries
OPTIONAL MATCH (s)-[:HAS_RETRIEVAL]->(r:Retrieval)
WITH s, turns, calls, summaries, collect(r) AS retrievals
WITH s, turns, calls, summaries + retrievals AS summaries
// the exact items an agent framework keeps in this session (graphmem.session_items)
OPTIONAL MATCH (s)-[:HAS_ITEM]->(si:SessionItem)
WITH s, turns, calls, summaries, collect(si) AS items
WITH s, turns, calls, summaries + items AS summaries
OPTIONAL MATCH (fs:FactScope {key: 'session:' + s.id})
WITH s, turns, calls, summaries, collect(fs) AS scopes
WITH s, turns, calls, summaries + scopes AS summaries
// the files its tool calls touched (deleted below when no other tool call touches them)
CALL (calls) {
  UNWIND calls AS c
  MATCH (c)-[:TOUCHED]->(file:File)
  RETURN collect(DISTINCT file) AS files
}
OPTIONAL MATCH (d:Directory)-[:HAS_SESSION]->(s)
WITH s, turns, calls, summaries, files, d, size(turns) AS turnCount
FOREACH (n IN calls | DETACH DELETE n)
FOREACH (n IN turns | DETACH DELETE n)
FOREACH (n IN summaries | DETACH DELETE n)
DETACH DELETE s
WITH d, turnCount, files
FOREACH (file IN [x IN files WHERE NOT EXISTS { (x)<-[:TOUCHED]-() }] | DELETE file)
WITH d, turnCount
CALL (d) {
  WITH d WHERE d IS NOT NULL AND NOT EXISTS { (d)-[:HAS_SESSION]->() }
  DELETE d
}
RETURN turnCount
