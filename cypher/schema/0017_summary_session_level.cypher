CREATE INDEX summary_session_level IF NOT EXISTS FOR (s:Summary) ON (s.sessionId, s.level)
