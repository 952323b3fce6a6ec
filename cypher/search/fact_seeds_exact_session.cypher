// Facts extracted from turns of one session, nearest to the query vector, scanned exactly: the
// seeds of the graph source's `fact` edge for a scope small enough to read whole. (search/fact_seeds
// reads the facts nearest to the query over every scope from the fact index and keeps this scope's:
// in a store where other scopes hold many facts nearer to the query, it finds fewer.) Current,
// unexpired facts only; a fact whose vector still waits for the index is read from pendingEmbedding.
// Returned as cosine.
MATCH (:Session {id: $value})-[:HAS_TURN]->(:Turn)<-[:EXTRACTED_FROM]-(f:Fact)
WHERE f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  AND size(coalesce(f.embedding, f.pendingEmbedding, [])) = size($vector)
WITH DISTINCT f
WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
RETURN f.id AS id, cosine
ORDER BY cosine DESC, id
LIMIT $k
