// Store computed embeddings on turns (compact vector storage) and mark them done.
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'embedding', r.embedding)
SET t.embeddingHash = r.hash, t.embeddingModel = $model, t.embedState = 'done'
RETURN count(t) AS updated
