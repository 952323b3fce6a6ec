// Store computed embeddings on turns (compact vector storage) and mark them done. ctxEmbedding (the
// neighbour-averaged vector the turn vector index searches) starts as the raw vector; the embedding pass
// then refines it from the neighbours (embeddings/set_context_vectors). chars (user message + assistant
// reply, in characters) lets retrieval tell long turns without reading their text. The request and
// reply joined as one document for the turn_search full-text index go to turnText for a long turn
// (chars over $longTurnChars; 0 = none is), to shortTurnText for any other: two fields, so each
// length class keeps its own BM25 statistics.
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'embedding', r.embedding)
CALL db.create.setNodeVectorProperty(t, 'ctxEmbedding', r.embedding)
WITH t, r, size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, '')) AS chars
WITH t, r, chars, $longTurnChars > 0 AND chars > $longTurnChars AS isLong,
     coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, '') AS joined
SET t.embeddingHash = r.hash, t.embeddingModel = $model, t.embedState = 'done', t.chars = chars,
    t.turnText = CASE WHEN isLong THEN joined END, t.shortTurnText = CASE WHEN isLong THEN null ELSE joined END
RETURN count(t) AS updated
