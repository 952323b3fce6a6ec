// Store computed embeddings on summaries and mark them done.
UNWIND $rows AS r
MATCH (s:Summary {id: r.id})
CALL db.create.setNodeVectorProperty(s, 'embedding', r.embedding)
SET s.embeddingHash = r.hash, s.embeddingModel = $model, s.embedState = 'done'
RETURN count(s) AS updated
