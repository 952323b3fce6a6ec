CREATE INDEX turn_embedding_hash IF NOT EXISTS FOR (t:Turn) ON (t.embeddingHash)
