// The facts of the scopes $scopeKeys that were true at $at: stated at or before it, not yet superseded
// or expired then (retired versions included); optionally only those tagged $subject. Newest first.
MATCH (f:Fact)
WHERE f.scopeKey IN $scopeKeys AND f.createdAt <= $at
  AND (f.supersededAt IS NULL OR f.supersededAt > $at) AND coalesce(f.expiresAt > $at, true)
  AND ($subject IS NULL OR EXISTS { (f)-[:ABOUT]->(:Subject {name: $subject}) })
WITH f
ORDER BY f.createdAt DESC
LIMIT $limit
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
