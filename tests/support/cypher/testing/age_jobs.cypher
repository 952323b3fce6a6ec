// Let time pass for the summary jobs of session $sessionId, as the database's clock sees it: their
// leases have expired and their back-off is over (tests age jobs instead of sleeping).
MATCH (j:SummaryJob {sessionId: $sessionId})
SET j.leaseUntil = CASE WHEN j.leaseUntil IS NULL THEN null ELSE datetime() - duration({seconds: 1}) END,
    j.notBefore = CASE WHEN j.notBefore IS NULL THEN null ELSE datetime() - duration({seconds: 1}) END
RETURN count(j) AS aged
