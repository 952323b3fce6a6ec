// Export: each listed session's subgraph (one row per session found) as lists of nodes and
// relationships (Neo4j element ids as references; embeddings and the long turns' joined text left
// out): its Directory, the Session, its Turns and their ToolCalls, its Summaries, and HAS_SESSION,
// HAS_TURN, NEXT, HAS_TOOL_CALL, HAS_SUMMARY, SUMMARIZES between them.
UNWIND $sessionIds AS sessionId
MATCH (s:Session {id: sessionId})
WITH s,
     COLLECT { MATCH (d:Directory)-[:HAS_SESSION]->(s) RETURN d } AS dirs,
     COLLECT { MATCH (s)-[:HAS_TURN]->(t:Turn) RETURN t ORDER BY t.index } AS turns,
     COLLECT { MATCH (s)-[:HAS_TURN]->(:Turn)-[:HAS_TOOL_CALL]->(c:ToolCall) RETURN c } AS calls,
     COLLECT { MATCH (s)-[:HAS_SUMMARY]->(m:Summary) RETURN m ORDER BY m.level, m.timestamp } AS summaries
WITH s, dirs + [s] + turns + calls + summaries AS nodes
RETURN
  s.id AS sessionId,
  [n IN nodes | {
     ref: elementId(n),
     labels: labels(n),
     properties: n {.*, embedding: null, turnText: null, shortTurnText: null}
   }] AS nodes,
  COLLECT { MATCH (d:Directory)-[r:HAS_SESSION]->(s) RETURN {source: elementId(d), target: elementId(s), type: type(r), properties: properties(r)} }
  + COLLECT { MATCH (s)-[r:HAS_TURN]->(t:Turn) RETURN {source: elementId(s), target: elementId(t), type: type(r), properties: properties(r)} ORDER BY t.index }
  + COLLECT { MATCH (s)-[:HAS_TURN]->(t:Turn)-[r:NEXT]->(u:Turn) WHERE u.sessionId = s.id RETURN {source: elementId(t), target: elementId(u), type: type(r), properties: properties(r)} ORDER BY t.index }
  + COLLECT { MATCH (s)-[:HAS_TURN]->(t:Turn)-[r:HAS_TOOL_CALL]->(c:ToolCall) RETURN {source: elementId(t), target: elementId(c), type: type(r), properties: properties(r)} ORDER BY t.index, r.order }
  + COLLECT { MATCH (s)-[r:HAS_SUMMARY]->(m:Summary) RETURN {source: elementId(s), target: elementId(m), type: type(r), properties: properties(r)} }
  + COLLECT { MATCH (s)-[:HAS_SUMMARY]->(m:Summary)-[r:SUMMARIZES]->(x) WHERE x.sessionId = s.id RETURN {source: elementId(m), target: elementId(x), type: type(r), properties: properties(r)} }
  AS relationships
