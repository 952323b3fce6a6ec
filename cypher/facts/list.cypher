// Current, unexpired facts with optional filters (a null parameter means no filter): scopes, type,
// subject, minimum importance, created since. Ordered by 'recent' (createdAt), 'importance' or
// 'accessed' (accessCount), newest first within ties.
MATCH (f:Fact)
WHERE ($scopeKeys IS NULL OR f.scopeKey IN $scopeKeys)
  AND f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  AND ($type IS NULL OR f.type = $type)
  AND ($minImportance IS NULL OR f.importance >= $minImportance)
  AND ($since IS NULL OR f.createdAt >= $since)
  AND ($subject IS NULL OR EXISTS { (f)-[:ABOUT]->(:Subject {name: $subject}) })
WITH f
ORDER BY CASE $order WHEN 'importance' THEN f.importance WHEN 'accessed' THEN f.accessCount ELSE 0 END DESC,
         f.createdAt DESC
LIMIT $limit
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
