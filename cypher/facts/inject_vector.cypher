// The pre-call injection's vector part: the vector top $k for $vector (cosine >= $minCosine) over
// the scopes the session may see (global, its project, itself), each scope searched its own way: an
// exact scan when it holds at most $exactMax facts, else the vector index (over-fetching $fetch nearest
// facts of every scope and keeping this one's: no in-index filtering before Neo4j 2026.01) plus a
// scan of the scope's facts whose vectors still wait for the index (see facts/remember).
// `vectorComplete` is false when an index search may have missed a fact above $minCosine (the caller
// then widens); `scopeCount` is how many facts those scopes hold. Embeddings as in inject_candidates.
// replan=skip: the server keeps this statement's plan. The statistics of the pending-vector index
// flip between empty and not around every remember, and each flip would otherwise make the server
// plan this statement again on its next call (a costly plan); the plan does not depend on size.
CYPHER replan=skip
MATCH (sess:Session {id: $sessionId})
WITH ['global', 'project:' + sess.projectPath, 'session:' + sess.id] AS scopeKeys
CALL (scopeKeys) {
  OPTIONAL MATCH (sc:FactScope) WHERE sc.key IN scopeKeys
  RETURN coalesce(sum(sc.count), 0) AS scopeCount
}
CALL (scopeKeys) {
  UNWIND scopeKeys AS key
  OPTIONAL MATCH (sc:FactScope {key: key})
  WITH key, coalesce(sc.count, 0) AS n
  CALL (key, n) {
    CALL (key, n) {
      // null unless the scope is small (a WHERE guard was planned after the seek, which then
      // read every fact of a large scope)
      WITH CASE WHEN $vector IS NOT NULL AND n > 0 AND n <= $exactMax THEN key END AS scanKey
      MATCH (f:Fact {scopeKey: scanKey})
        WHERE f.supersededAt IS NULL AND coalesce(f.embedding, f.pendingEmbedding) IS NOT NULL
      WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
      WHERE cosine >= $minCosine
      RETURN f, cosine, 1 AS exact
      UNION ALL
      // a large scope's facts whose vectors wait for the index (see facts/remember), before the index
      WITH key, n WHERE $vector IS NOT NULL AND n > $exactMax
      MATCH (f:Fact) USING INDEX f:Fact(vectorPendingSince)
        WHERE f.vectorPendingSince IS NOT NULL AND f.scopeKey = key AND f.supersededAt IS NULL
      WITH f, 2 * vector.similarity.cosine(f.pendingEmbedding, $vector) - 1 AS cosine
      WHERE cosine >= $minCosine
      RETURN f, cosine, 0 AS exact
      UNION ALL
      WITH key, n WHERE $vector IS NOT NULL AND n > $exactMax
      CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
      RETURN f, 2 * score - 1 AS cosine, 0 AS exact
    }
    WITH f, cosine, exact ORDER BY cosine DESC
    RETURN count(f) AS fetched, min(cosine) AS lowestCosine, coalesce(max(exact), 1) = 1 AS exact,
           collect(CASE WHEN f.scopeKey = key AND f.supersededAt IS NULL AND cosine >= $minCosine
                         AND coalesce(f.expiresAt > datetime(), true)
                    THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, embedding: CASE WHEN f.id IN $knownIds THEN null ELSE coalesce(f.embedding, f.pendingEmbedding) END,
                        subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], cosine: cosine} END)[0..$k] AS found
  }
  WITH collect(exact OR fetched < $fetch OR lowestCosine < $minCosine) AS done, collect(found) AS founds
  UNWIND (CASE WHEN size(founds) = 0 THEN [[]] ELSE founds END) AS found
  UNWIND (CASE WHEN size(found) = 0 THEN [null] ELSE found END) AS hit
  WITH done, hit ORDER BY hit.cosine DESC
  RETURN all(d IN done WHERE d) AS vectorComplete, collect(hit)[0..$k] AS vector
}
RETURN scopeCount, vector, vectorComplete
