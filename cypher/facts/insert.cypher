// Insert a new current fact with its subjects, its provenance (a turn, when given) and, when
// $supersedes is a fact id, retire that fact: it keeps its text as history behind SUPERSEDES, loses
// its embedding (so it leaves the vector index) and hands over its subjects and access count.
// The vector goes to `pendingEmbedding` (with `vectorPendingSince`), outside the vector index:
// remember() indexes it right after the commit, on the background writer (facts/index_vectors: the
// index insertion is most of a commit's cost); the reads that must see it scan pending vectors.
MATCH (s:FactScope {key: $scopeKey})
OPTIONAL MATCH (old:Fact {id: $supersedes}) WHERE old.supersededAt IS NULL
CREATE (f:Fact {id: $id, content: $content, contentKey: $contentKey, type: $type, importance: $importance,
                createdAt: $now, updatedAt: $now, expiresAt: $expiresAt, accessCount: coalesce(old.accessCount, 0),
                lastAccessedAt: old.lastAccessedAt, source: $source, scope: $scopeKind, scopeKey: $scopeKey,
                firstCreatedAt: coalesce(old.firstCreatedAt, old.createdAt, $now), version: coalesce(old.version, 0) + 1})
SET s.count = s.count + CASE WHEN old IS NULL THEN 1 ELSE 0 END
WITH f, old
CALL (f) {
  WITH f WHERE $vector IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'pendingEmbedding', $vector)
  SET f.vectorPendingSince = $now
}
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
CALL (f, old) {
  WITH f, old WHERE old IS NOT NULL
  CREATE (f)-[:SUPERSEDES {at: $now}]->(old)
  SET old.supersededAt = $now, old.updatedAt = $now
  REMOVE old.embedding, old.pendingEmbedding, old.vectorPendingSince
  WITH f, old
  MATCH (old)-[:ABOUT]->(x:Subject)
  MERGE (f)-[:ABOUT]->(x)
}
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt),
  .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact
