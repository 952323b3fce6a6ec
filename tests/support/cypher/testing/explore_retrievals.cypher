// Test data for the explore queries (tests/integration/test_explore*.py only): injection logs in
// the fact layer's model (cypher/retrievals/log.cypher): a Retrieval under the session and
// RETRIEVED edges to the facts; every node carries testNamespace for the cleanup.
MATCH (s:Session {id: $sessionId})
UNWIND $retrievals AS row
CREATE (r:Retrieval {id: row.id, sessionId: s.id, at: row.at, turnIndex: row.turnIndex,
                     messagePreview: row.preview, query: row.preview,
                     itemIds: [i IN row.items | i.id], itemScores: [i IN row.items | i.score],
                     itemCount: size(row.items), chars: row.chars, testNamespace: $ns})
CREATE (s)-[:HAS_RETRIEVAL]->(r)
WITH r, row
CALL (r, row) {
  UNWIND range(0, size(row.items) - 1) AS n
  WITH n, row.items[n] AS item
  MATCH (f:Fact {id: item.id})
  CREATE (r)-[:RETRIEVED {rank: n + 1, score: item.score, reason: item.reason}]->(f)
}
RETURN count(r) AS created
