// After lock_jobs and job_owner: delete a job that has nothing left to do (its session was
// deleted, or its children are already summarized), recording nothing else.
MATCH (j:SummaryJob {id: $jobId})
DELETE j
RETURN count(*) AS dropped
