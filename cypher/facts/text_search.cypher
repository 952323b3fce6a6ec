// Case-insensitive substring search over current, unexpired facts (used without an embedder, and by
// forget to catch facts that name the topic or are tagged with it). Null $scopeKeys: every scope.
MATCH (f:Fact)
WHERE ($scopeKeys IS NULL OR f.scopeKey IN $scopeKeys)
  AND f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  AND (toLower(f.content) CONTAINS $needle OR EXISTS { (f)-[:ABOUT]->(:Subject {name: $subject}) })
WITH f
ORDER BY f.importance DESC, f.createdAt DESC
LIMIT $limit
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
