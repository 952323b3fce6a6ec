CREATE INDEX turn_embed_state IF NOT EXISTS FOR (t:Turn) ON (t.embedState)
