// graphmem reindex: forget up to $batch summary embeddings and mark those summaries pending (run until 0).
MATCH (m:Summary)
WHERE m.embedding IS NOT NULL OR m.embedState <> 'pending'
WITH m LIMIT $batch
REMOVE m.embedding, m.embeddingHash, m.embeddingModel
SET m.embedState = 'pending'
RETURN count(m) AS reset
