// Give failed jobs (of one session, or all when $sessionId is null) a fresh set of attempts.
MATCH (j:SummaryJob {state: 'failed'})
WHERE $sessionId IS NULL OR j.sessionId = $sessionId
SET j.state = 'ready', j.errors = 0, j.lostLeases = 0, j.notBefore = datetime(), j.failedAt = null
RETURN count(j) AS retried
