CREATE INDEX summary_project IF NOT EXISTS FOR (s:Summary) ON (s.projectPath)
