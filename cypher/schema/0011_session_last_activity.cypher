CREATE INDEX session_last_activity IF NOT EXISTS FOR (s:Session) ON (s.lastActivityAt)
