// After lock_jobs, in the same transaction: claim those still claimable with a lease and a fresh
// token; a running job whose lease expired counts as a lost lease.
UNWIND $ids AS id
MATCH (j:SummaryJob {id: id})
WHERE (j.state = 'ready' AND j.notBefore <= datetime()) OR (j.state = 'running' AND j.leaseUntil < datetime())
WITH j, j.state = 'running' AS expired
SET j.lostLeases = j.lostLeases + CASE WHEN expired THEN 1 ELSE 0 END,
    j.attempts = j.attempts + 1,
    j.state = 'running',
    j.owner = $owner,
    j.token = $token,
    j.claimedAt = datetime(),
    j.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN j {.id, .sessionId, .level, .childIds, .coverKey, .attempts, .errors, .lostLeases, .fromIndex, .toIndex} AS job
