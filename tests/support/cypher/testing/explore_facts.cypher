// Test data for the explore queries (tests/integration/test_explore*.py only): facts about one
// subject in the fact layer's model (graphmem/facts); every node carries testNamespace for the cleanup.
MERGE (subj:Subject {name: $subject})
SET subj.testNamespace = $ns
WITH subj
UNWIND $facts AS row
CREATE (f:Fact {id: row.id, content: row.content, type: row.type, importance: row.importance,
                createdAt: datetime(), updatedAt: datetime(), scope: 'project', scopeKey: 'project:' + $ns,
                supersededAt: row.supersededAt, testNamespace: $ns})
CREATE (f)-[:ABOUT]->(subj)
WITH f, row
CALL (f, row) {
  MATCH (t:Turn {id: row.turnId})
  CREATE (f)-[:EXTRACTED_FROM]->(t)
}
CALL (f, row) {
  MATCH (old:Fact {id: row.supersedes})
  CREATE (f)-[:SUPERSEDES {at: datetime()}]->(old)
}
RETURN count(f) AS created
