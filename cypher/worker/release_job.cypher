// After lock_jobs and job_owner: give back a claimed job not started (a worker stopping cleanly).
MATCH (j:SummaryJob {id: $jobId})
SET j.state = 'ready', j.attempts = j.attempts - 1, j.owner = null, j.token = null, j.leaseUntil = null
RETURN j.id AS id
