// Let the lease of one running summary job ($jobId) expire, as the database's clock sees it: its
// worker is gone and the lease it held is over (tests expire a lease instead of waiting it out).
MATCH (j:SummaryJob {id: $jobId})
WHERE j.state = 'running'
SET j.leaseUntil = datetime() - duration({seconds: 1})
RETURN count(j) AS expired
