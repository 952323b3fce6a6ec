CREATE INDEX summary_job_session IF NOT EXISTS FOR (j:SummaryJob) ON (j.sessionId)
