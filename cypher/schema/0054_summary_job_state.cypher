CREATE INDEX summary_job_state IF NOT EXISTS FOR (j:SummaryJob) ON (j.state)
