CREATE INDEX summary_embed_state IF NOT EXISTS FOR (s:Summary) ON (s.embedState)
