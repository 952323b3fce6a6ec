CREATE INDEX turn_project IF NOT EXISTS FOR (t:Turn) ON (t.projectPath)
