// graphmem reindex: forget up to $batch turn embeddings and mark those turns pending (run until 0).
MATCH (t:Turn)
WHERE t.embedding IS NOT NULL OR t.embedState <> 'pending'
WITH t LIMIT $batch
REMOVE t.embedding, t.embeddingHash, t.embeddingModel
SET t.embedState = 'pending'
RETURN count(t) AS reset
