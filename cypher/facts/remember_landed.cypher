// remember() after its connection was lost mid-statement: did its write (a new fact with $id) land?
// The fact and the version it superseded, if any (no row: it did not land, or the call kept a fact).
MATCH (f:Fact {id: $id})
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
RETURN 'landed' AS rule, f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt),
         expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey,
         subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} AS fact,
       CASE WHEN old IS NULL THEN null ELSE old {.id, .content, .type, .importance, createdAt: toString(old.createdAt), updatedAt: toString(old.updatedAt),
         expiresAt: toString(old.expiresAt), .accessCount, lastAccessedAt: toString(old.lastAccessedAt), .source, .scope, .scopeKey,
         subjects: [(old)-[:ABOUT]->(x:Subject) | x.name]} END AS matched
