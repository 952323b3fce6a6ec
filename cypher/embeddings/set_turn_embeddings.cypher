// Store computed embeddings on turns (compact vector storage) and mark them done. ctxEmbedding (the
// neighbour-averaged vector the turn vector index searches) starts as the raw vector; the embedding pass
// then refines it from the neighbours (embeddings/set_context_vectors). chars (user message + assistant
// reply, in characters) lets retrieval tell long turns without reading their text.
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'embedding', r.embedding)
CALL db.create.setNodeVectorProperty(t, 'ctxEmbedding', r.embedding)
SET t.embeddingHash = r.hash, t.embeddingModel = $model, t.embedState = 'done',
    t.chars = size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, ''))
RETURN count(t) AS updated
