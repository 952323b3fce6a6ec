// Benchmarks only: store given (synthetic) vectors on turns and summaries by id, as the embedding
// pipeline would (compact vector storage, embedState done; turns also get their length, chars).
UNWIND $rows AS r
OPTIONAL MATCH (t:Turn {id: r.id})
OPTIONAL MATCH (m:Summary {id: r.id})
WITH coalesce(t, m) AS n, r, t WHERE n IS NOT NULL
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
SET n.embeddingModel = $model, n.embedState = 'done',
    n.chars = CASE WHEN t IS NULL THEN null ELSE size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, '')) END
RETURN count(n) AS updated
