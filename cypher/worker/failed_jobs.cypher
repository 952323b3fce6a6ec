// Failed jobs with their last error, newest failure first.
MATCH (j:SummaryJob {state: 'failed'})
WITH j ORDER BY j.failedAt DESC LIMIT $limit
RETURN j {.id, .sessionId, .level, .fromIndex, .toIndex, .attempts, .errors, .lostLeases, .lastError, .failedAt,
          children: size(j.childIds)} AS job
