// list_facts ordered by 'recent' within given scopes: per scope, the (scopeKey, createdAt) index is
// read newest first and stops after $limit current facts, so a scope of 100k facts costs what its
// newest ones cost; the scopes' pages are then merged. Same filters as facts/list.
UNWIND $scopeKeys AS scopeKey
CALL (scopeKey) {
  MATCH (f:Fact)
  USING INDEX f:Fact(scopeKey, createdAt)
  WHERE f.scopeKey = scopeKey AND f.createdAt IS NOT NULL
    AND f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
    AND ($type IS NULL OR f.type = $type)
    AND ($minImportance IS NULL OR f.importance >= $minImportance)
    AND ($since IS NULL OR f.createdAt >= $since)
  RETURN f
  ORDER BY f.scopeKey DESC, f.createdAt DESC  // both index keys: the index gives the order
  LIMIT $limit
}
WITH f
ORDER BY f.createdAt DESC
LIMIT $limit
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
