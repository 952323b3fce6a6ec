// Test support only: add a SUMMARIZES edge to break an invariant on purpose. With $key null the
// edge has no childId, so the uniqueness constraint does not stop it; with $key = the child's id
// the database must refuse a second parent.
MATCH (p:Summary {id: $parentId})
MATCH (c) WHERE (c:Turn OR c:Summary) AND c.id = $childId
CREATE (p)-[:SUMMARIZES {childId: $key}]->(c)
RETURN p.id AS id
