// Deletes what tests/integration/test_explore*.py created outside sessions (facts, subjects,
// retrieval logs), by the testNamespace they carry.
CALL () {
  MATCH (n:Fact {testNamespace: $ns}) RETURN n
  UNION
  MATCH (n:Subject {testNamespace: $ns}) RETURN n
  UNION
  MATCH (n:Retrieval {testNamespace: $ns}) RETURN n
}
DETACH DELETE n
