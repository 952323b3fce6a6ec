CREATE INDEX turn_cwd IF NOT EXISTS FOR (t:Turn) ON (t.cwd)
