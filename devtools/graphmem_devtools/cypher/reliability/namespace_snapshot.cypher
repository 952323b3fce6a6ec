// Every node of a namespace (sessions at or under a path, or with the given ids, and everything
// they own: turns, tool calls, summaries, jobs, retrieval logs, session/project facts and their
// subjects, directories) with its properties and outgoing relationships (embeddings left out).
// Used by `graphmem reliability hostile` and the security tests to compare and scan a namespace.
MATCH (s:Session)
WHERE s.cwd = $path OR s.cwd STARTS WITH $prefix OR s.id IN $sessionIds
WITH collect(s.id) AS sids
WITH sids, [x IN sids | 'session:' + x] AS skeys
CALL (sids, skeys) {
  MATCH (n:Session) WHERE n.id IN sids RETURN n
  UNION
  MATCH (n:Turn) WHERE n.sessionId IN sids RETURN n
  UNION
  MATCH (t:Turn)-[:HAS_TOOL_CALL]->(n:ToolCall) WHERE t.sessionId IN sids RETURN n
  UNION
  MATCH (n:Summary) WHERE n.sessionId IN sids RETURN n
  UNION
  MATCH (n:SummaryJob) WHERE n.sessionId IN sids RETURN n
  UNION
  MATCH (n:Retrieval) WHERE n.sessionId IN sids RETURN n
  UNION
  MATCH (n:Fact)
  WHERE n.scopeKey IN skeys OR n.scopeKey = 'project:' + $path OR n.scopeKey STARTS WITH 'project:' + $prefix
  RETURN n
  UNION
  MATCH (f:Fact)-[:ABOUT]->(n:Subject)
  WHERE f.scopeKey IN skeys OR f.scopeKey = 'project:' + $path OR f.scopeKey STARTS WITH 'project:' + $prefix
  RETURN n
  UNION
  MATCH (n:Directory) WHERE n.path = $path OR n.path STARTS WITH $prefix RETURN n
}
WITH n
OPTIONAL MATCH (n)-[r]->(m)
WITH n, collect(CASE WHEN r IS NULL THEN null
                     ELSE {type: type(r), to: coalesce(m.id, m.name, m.path, elementId(m)), props: properties(r)} END)
        AS rels
RETURN labels(n) AS labels, coalesce(n.id, n.name, n.path, elementId(n)) AS key,
       n {.*, embedding: null} AS props, rels
