// graphmem reindex: forget up to $batch turn embeddings (raw and neighbour-averaged) and neighbour texts
// (contextText, written again by the pass) and mark those turns pending (run until 0).
MATCH (t:Turn)
WHERE t.embedding IS NOT NULL OR t.ctxEmbedding IS NOT NULL OR t.contextText IS NOT NULL
   OR t.embedState <> 'pending'
WITH t LIMIT $batch
REMOVE t.embedding, t.ctxEmbedding, t.embeddingHash, t.embeddingModel, t.contextText
SET t.embedState = 'pending'
RETURN count(t) AS reset
