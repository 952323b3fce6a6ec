CREATE INDEX session_project IF NOT EXISTS FOR (s:Session) ON (s.projectPath)
