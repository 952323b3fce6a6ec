// Jobs a worker may take now: ready ones whose backoff has passed, and running ones whose lease
// expired (their worker died or stalled); of directory $path and below unless $path is null. Oldest first.
MATCH (j:SummaryJob)
WHERE ((j.state = 'ready' AND j.notBefore <= datetime()) OR (j.state = 'running' AND j.leaseUntil < datetime()))
  AND ($path IS NULL OR j.cwd = $path OR j.cwd STARTS WITH $prefix)
WITH j ORDER BY j.createdAt LIMIT $limit
RETURN j.id AS id
