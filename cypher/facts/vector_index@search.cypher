// Nearest current, unexpired facts of the given scopes, filtered inside the vector index (Cypher 25
// SEARCH clause, Neo4j 2026.01+): one index search per scope, $fetch nearest each, merged.
// Same one-row shape as vector_index. Index scores are (1 + cos) / 2.
CYPHER 25
UNWIND $scopeKeys AS key
CALL (key) {
  // an empty scope is not searched (2026.08.1's in-index filter fails when nothing matches it)
  WITH key WHERE EXISTS { MATCH (sc:FactScope {key: key}) WHERE sc.count > 0 }
  MATCH (f:Fact)
    SEARCH f IN (VECTOR INDEX fact_embedding FOR $vector WHERE f.scopeKey = key LIMIT $fetch) SCORE AS score
  RETURN f, 2 * score - 1 AS cosine
}
WITH f, cosine
ORDER BY cosine DESC
WITH count(*) AS fetched, min(cosine) AS lowestCosine,
     collect(CASE WHEN f.supersededAt IS NULL AND cosine >= $minCosine
                   AND coalesce(f.expiresAt > datetime(), true)
              THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount,
                      lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, .embedding,
                      subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], cosine: cosine} END) AS found
RETURN fetched, coalesce(lowestCosine, -1.0) AS lowestCosine, found[0..$k] AS hits
