CREATE INDEX retrieval_session_at IF NOT EXISTS FOR (r:Retrieval) ON (r.sessionId, r.at)
