// list_facts ordered by 'importance' within given scopes: per scope, the (scopeKey, importance) index
// is read from the most important down (ties newest first) and stops after $limit current facts; the
// scopes' pages are then merged. Same filters as facts/list.
UNWIND $scopeKeys AS scopeKey
CALL (scopeKey) {
  MATCH (f:Fact)
  USING INDEX f:Fact(scopeKey, importance)
  WHERE f.scopeKey = scopeKey AND f.importance IS NOT NULL
    AND f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
    AND ($type IS NULL OR f.type = $type)
    AND ($minImportance IS NULL OR f.importance >= $minImportance)
    AND ($since IS NULL OR f.createdAt >= $since)
  RETURN f
  ORDER BY f.scopeKey DESC, f.importance DESC, f.createdAt DESC  // the index gives the order, ties sorted
  LIMIT $limit
}
WITH f
ORDER BY f.importance DESC, f.createdAt DESC
LIMIT $limit
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
