CREATE INDEX summary_cwd IF NOT EXISTS FOR (s:Summary) ON (s.cwd)
