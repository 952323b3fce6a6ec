// After worker/lock_jobs, in the same transaction as the write: whether this claim still owns the
// job, and how many of its children some summary already covers (each child has at most one
// parent: the SUMMARIZES childId uniqueness constraint).
MATCH (j:SummaryJob {id: $jobId})
RETURN j.state = 'running' AND j.token = $token AS owned,
       COUNT { UNWIND $childIds AS cid MATCH ()-[r:SUMMARIZES {childId: cid}]->() RETURN r } AS covered
