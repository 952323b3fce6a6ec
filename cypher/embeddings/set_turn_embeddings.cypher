// Store computed embeddings on turns (compact vector storage) and mark them done. ctxEmbedding (the
// neighbour-averaged vector the turn vector index searches) starts as the raw vector; the embedding pass
// then refines it from the neighbours (embeddings/set_context_vectors).
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'embedding', r.embedding)
CALL db.create.setNodeVectorProperty(t, 'ctxEmbedding', r.embedding)
SET t.embeddingHash = r.hash, t.embeddingModel = $model, t.embedState = 'done'
RETURN count(t) AS updated
