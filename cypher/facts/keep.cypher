// A remember that adds nothing new to an existing fact: add the new subjects, and take the new
// expiry when one was given ($setExpiry). Returns the fact.
MATCH (f:Fact {id: $id})
SET f.expiresAt = CASE WHEN $setExpiry THEN $expiresAt ELSE f.expiresAt END
WITH f
CALL (f) {
  UNWIND $subjects AS name
  MERGE (x:Subject {name: name})
  MERGE (f)-[:ABOUT]->(x)
}
CALL (f) {
  OPTIONAL MATCH (t:Turn {id: $turnId})
  WITH f, t WHERE t IS NOT NULL
  MERGE (f)-[:EXTRACTED_FROM]->(t)
}
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt),
  .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
