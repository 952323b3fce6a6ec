CREATE INDEX note_embed_state IF NOT EXISTS FOR (n:Note) ON (n.embedState)
