CREATE INDEX live_message_digest IF NOT EXISTS FOR (m:LiveMessage) ON (m.digestId)
