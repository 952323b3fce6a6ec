// Store computed embeddings on turns (compact vector storage) and mark them done. ctxEmbedding (the
// neighbour-averaged vector the turn vector index searches) starts as the raw vector; the embedding pass
// then refines it from the neighbours (embeddings/set_context_vectors). chars (user message + assistant
// reply, in characters) lets retrieval tell long turns without reading their text. A long turn (chars
// over $longTurnChars; 0 = none is) also gets turnText, its request and reply as one document for the
// long_turn_search full-text index; any other turn has none.
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'embedding', r.embedding)
CALL db.create.setNodeVectorProperty(t, 'ctxEmbedding', r.embedding)
WITH t, r, size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, '')) AS chars
SET t.embeddingHash = r.hash, t.embeddingModel = $model, t.embedState = 'done', t.chars = chars,
    t.turnText = CASE WHEN $longTurnChars > 0 AND chars > $longTurnChars
                      THEN coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, '') END
RETURN count(t) AS updated
