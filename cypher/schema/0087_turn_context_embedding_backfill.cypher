MATCH (t:Turn) WHERE t.embedding IS NOT NULL AND t.ctxEmbedding IS NULL SET t.embedState = 'pending'
