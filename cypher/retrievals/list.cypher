// The latest injection logs, newest first, optionally of one session.
MATCH (r:Retrieval)
WHERE $sessionId IS NULL OR r.sessionId = $sessionId
WITH r ORDER BY r.at DESC LIMIT $limit
RETURN r {.*} AS retrieval
