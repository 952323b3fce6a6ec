// Take (creating it if needed) the write lock of a session's planning cursor for one summary level:
// planners of the same (session, level) are serialised by it, so their queued jobs never overlap.
// Nothing happens when the session does not exist.
MATCH (s:Session {id: $sessionId})
MERGE (c:SummaryCursor {key: $key})
  ON CREATE SET c.sessionId = s.id, c.cwd = s.cwd, c.level = $level, c.through = 0, c.createdAt = datetime()
SET c.lockedAt = datetime()
RETURN count(c) AS locked
