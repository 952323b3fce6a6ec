// remember(), first statement of its write transaction, in one round trip (Neo4j 2026.01+: the
// vector index filters on the scope itself, Cypher 25 SEARCH clause): lock the scope's
// (:FactScope) node (serialises remembers of one scope, so the check and the write cannot race; it
// also keeps the scope's approximate fact count), find a current fact with exactly the same
// normalised text, else the current facts nearest to $vector with cosine >= $minCosine (best
// first, at most $k). Small scopes (count <= $exactMax) are scanned exactly, larger ones searched
// in the index ($fetch nearest of the scope) plus a scan of their facts whose vectors still wait
// for the index (`pendingEmbedding`, see facts/insert). `complete` is false when that search may have
// missed a fact above $minCosine (the caller then widens). Index scores are (1 + cos) / 2.
CYPHER 25
MERGE (s:FactScope {key: $scopeKey})
  ON CREATE SET s.kind = $scopeKind, s.count = 0, s.createdAt = datetime()
SET s.lockedAt = datetime()
WITH s
OPTIONAL MATCH (e:Fact {scopeKey: $scopeKey, contentKey: $contentKey})
  WHERE e.supersededAt IS NULL AND coalesce(e.expiresAt > datetime(), true)
WITH s, e LIMIT 1
CALL (s, e) {
  CALL (s, e) {
    // the scan's key is null unless the scope is small: a plain WHERE guard here was planned after
    // the index seek, which then read every fact of a large scope before discarding them all
    WITH CASE WHEN e IS NULL AND $vector IS NOT NULL AND s.count <= $exactMax THEN $scopeKey END AS scanKey
    MATCH (f:Fact {scopeKey: scanKey})
      WHERE f.supersededAt IS NULL AND coalesce(f.embedding, f.pendingEmbedding) IS NOT NULL
    WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
    WHERE cosine >= $minCosine
    RETURN f, cosine, true AS exact
    UNION ALL
    // a large scope's facts whose vectors are not in the index yet (remembered moments ago), scanned
    // before the index is searched: a fact indexed in between is then found by one or the other
    WITH s, e WHERE e IS NULL AND $vector IS NOT NULL AND s.count > $exactMax
    MATCH (f:Fact) USING INDEX f:Fact(vectorPendingSince)
      WHERE f.vectorPendingSince IS NOT NULL AND f.scopeKey = $scopeKey AND f.supersededAt IS NULL
    WITH f, 2 * vector.similarity.cosine(f.pendingEmbedding, $vector) - 1 AS cosine
    WHERE cosine >= $minCosine
    RETURN f, cosine, false AS exact
    UNION ALL
    WITH s, e WHERE e IS NULL AND $vector IS NOT NULL AND s.count > $exactMax
    MATCH (f:Fact)
      SEARCH f IN (VECTOR INDEX fact_embedding FOR $vector WHERE f.scopeKey = $scopeKey LIMIT $fetch) SCORE AS score
    RETURN f, 2 * score - 1 AS cosine, false AS exact
  }
  WITH f, cosine, exact ORDER BY cosine DESC
  WITH count(f) AS fetched, min(cosine) AS lowestCosine, coalesce(max(CASE WHEN exact THEN 1 ELSE 0 END), 1) = 1 AS exact,
       collect(CASE WHEN f.supersededAt IS NULL AND cosine >= $minCosine
                     AND coalesce(f.expiresAt > datetime(), true)
                THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount,
                        lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name],
                        cosine: cosine} END) AS found
  RETURN found[0..$k] AS hits, exact OR fetched < $fetch OR lowestCosine < $minCosine AS complete
}
RETURN s.count AS count, hits, complete,
       CASE WHEN e IS NULL THEN null ELSE e {.id, .content, .type, .importance, createdAt: toString(e.createdAt), updatedAt: toString(e.updatedAt), expiresAt: toString(e.expiresAt),
         .accessCount, lastAccessedAt: toString(e.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(e)-[:ABOUT]->(x:Subject) | x.name]} END AS same
