CREATE INDEX summary_embedding_hash IF NOT EXISTS FOR (s:Summary) ON (s.embeddingHash)
