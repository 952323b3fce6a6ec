// After lock_jobs and job_owner, in the same transaction: record a failed attempt; back off, or
// end in the failed state (kept, with its error, until `graphmem worker retry-failed`).
MATCH (j:SummaryJob {id: $jobId})
SET j.errors = j.errors + 1,
    j.lastError = $error,
    j.lastErrorAt = datetime(),
    j.state = $state,
    j.notBefore = datetime() + duration({milliseconds: $backoffMs}),
    j.failedAt = CASE WHEN $state = 'failed' THEN datetime() ELSE null END,
    j.owner = null, j.token = null, j.leaseUntil = null
RETURN j.state AS state, j.errors AS errors
