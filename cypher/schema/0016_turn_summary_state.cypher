CREATE INDEX turn_summary_state IF NOT EXISTS FOR (t:Turn) ON (t.summaryState)
