// After lock_jobs, in the same transaction: whether this claim (token) still owns the job.
MATCH (j:SummaryJob {id: $jobId})
RETURN j.state = 'running' AND j.token = $token AS owned, j.errors AS errors
