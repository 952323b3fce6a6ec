CREATE INDEX live_message_embed_state IF NOT EXISTS FOR (m:LiveMessage) ON (m.embedState)
