// One fact by id (a superseded version too), with the id of its current version.
MATCH (f:Fact {id: $id})
OPTIONAL MATCH (head:Fact)-[:SUPERSEDES*1..]->(f) WHERE head.supersededAt IS NULL
RETURN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact, f.supersededAt AS supersededAt, head.id AS currentId,
       [(f)-[:SUPERSEDES*1..]->(v:Fact) | v.content] AS history
