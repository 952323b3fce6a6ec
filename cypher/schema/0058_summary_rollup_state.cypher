CREATE INDEX summary_rollup_state IF NOT EXISTS FOR (s:Summary) ON (s.rollupState)
