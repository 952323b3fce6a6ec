CREATE INDEX session_cwd IF NOT EXISTS FOR (s:Session) ON (s.cwd)
