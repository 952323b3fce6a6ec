// Extend the leases of jobs this claim (token) still holds.
UNWIND $ids AS id
MATCH (j:SummaryJob {id: id})
WHERE j.token = $token AND j.state = 'running'
SET j.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN count(j) AS extended
