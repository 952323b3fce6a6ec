// Lock a fact scope for a remember (serialises remembers of one scope, so the similarity check and
// the write cannot race) and find a current fact with exactly the same normalised text.
// The scope node also keeps an approximate count of its facts, used to pick exact or index search.
MERGE (s:FactScope {key: $scopeKey})
  ON CREATE SET s.kind = $scopeKind, s.count = 0, s.createdAt = datetime()
SET s.lockedAt = datetime()
WITH s
OPTIONAL MATCH (e:Fact {scopeKey: $scopeKey, contentKey: $contentKey})
  WHERE e.supersededAt IS NULL AND (e.expiresAt IS NULL OR e.expiresAt > datetime())
WITH s, e LIMIT 1
RETURN s.count AS count,
       CASE WHEN e IS NULL THEN null ELSE e {.id, .content, .type, .importance, .createdAt, .updatedAt, .expiresAt,
         .accessCount, .lastAccessedAt, .source, .scope, .scopeKey, subjects: [(e)-[:ABOUT]->(x:Subject) | x.name]} END AS same
