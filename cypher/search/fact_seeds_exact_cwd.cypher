// Facts extracted from turns of one scope (working directory), nearest to the query vector, scanned
// exactly: the seeds of the graph source's `fact` edge when the fact index read (search/fact_seeds:
// the facts nearest to the query over every scope, this scope's kept) left fewer than $k while the
// index holds more facts than it gave (other scopes' facts nearer to the query crowded this one's
// out), and the scope is small enough to read whole. Current, unexpired facts only; a fact whose
// vector still waits for the index is read from pendingEmbedding. Returned as cosine.
MATCH (:Turn {cwd: $value})<-[:EXTRACTED_FROM]-(f:Fact)
WHERE f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  AND size(coalesce(f.embedding, f.pendingEmbedding, [])) = size($vector)
WITH DISTINCT f
WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
RETURN f.id AS id, cosine
ORDER BY cosine DESC, id
LIMIT $k
