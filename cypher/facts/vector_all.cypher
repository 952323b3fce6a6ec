// Nearest current, unexpired facts of every scope through the vector index (over-fetched by the
// caller to make up for expired facts still indexed). Same one-row shape as vector_index.
CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
WITH f, 2 * score - 1 AS cosine
ORDER BY cosine DESC
WITH count(*) AS fetched, min(cosine) AS lowestCosine,
     collect(CASE WHEN f.supersededAt IS NULL AND cosine >= $minCosine
                   AND coalesce(f.expiresAt > datetime(), true)
              THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount,
                      lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, .embedding,
                      subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], cosine: cosine} END) AS found
RETURN fetched, coalesce(lowestCosine, -1.0) AS lowestCosine, found[0..$k] AS hits
