// Exact (brute-force) cosine over the current, unexpired facts of the given scopes: used when they
// hold few facts. Same one-row shape as vector_index: fetched, lowestCosine (-1: exhaustive), hits.
// vector.similarity.cosine, like the index, returns (1 + cos) / 2: converted to cosine here.
MATCH (f:Fact)
WHERE f.scopeKey IN $scopeKeys AND f.supersededAt IS NULL AND coalesce(f.embedding, f.pendingEmbedding) IS NOT NULL
  AND coalesce(f.expiresAt > datetime(), true)
WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
WHERE cosine >= $minCosine
ORDER BY cosine DESC
LIMIT $k
WITH collect(f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt),
  .source, .scope, .scopeKey, embedding: coalesce(f.embedding, f.pendingEmbedding), subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], cosine: cosine}) AS hits
RETURN size(hits) AS fetched, -1.0 AS lowestCosine, hits
