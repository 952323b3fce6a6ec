// Benchmarks only: store given (synthetic) vectors on turns and summaries by id, as the embedding
// pipeline would (compact vector storage, embedState done).
UNWIND $rows AS r
OPTIONAL MATCH (t:Turn {id: r.id})
OPTIONAL MATCH (m:Summary {id: r.id})
WITH coalesce(t, m) AS n, r WHERE n IS NOT NULL
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
SET n.embeddingModel = $model, n.embedState = 'done'
RETURN count(n) AS updated
