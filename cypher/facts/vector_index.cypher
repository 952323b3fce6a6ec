// Nearest current, unexpired facts of the given scopes through the vector index, for servers without
// in-index filtering (5.26): the $fetch nearest facts of every scope are read and post-filtered.
// One row: fetched (how many the index returned), lowestCosine (the last one's cosine) and hits,
// so the caller can tell when a wider fetch is needed. Index scores are (1 + cos) / 2.
CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
WITH f, 2 * score - 1 AS cosine
ORDER BY cosine DESC
WITH count(*) AS fetched, min(cosine) AS lowestCosine,
     collect(CASE WHEN f.scopeKey IN $scopeKeys AND f.supersededAt IS NULL AND cosine >= $minCosine
                   AND coalesce(f.expiresAt > datetime(), true)
              THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount,
                      lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, .embedding,
                      subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], cosine: cosine} END) AS found
RETURN fetched, coalesce(lowestCosine, -1.0) AS lowestCosine, found[0..$k] AS hits
