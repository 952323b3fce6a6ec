// After lock_cursor, in the same transaction: queue summary jobs and move the cursor past them.
// A job's coverKey is unique (constraint), so the same children are never queued twice.
MATCH (c:SummaryCursor {key: $key})
SET c.through = $through, c.plannedAt = datetime()
WITH c
UNWIND $jobs AS j
CREATE (:SummaryJob {
  id: j.id, coverKey: j.coverKey, sessionId: c.sessionId, cwd: c.cwd, level: j.level, childIds: j.childIds,
  fromIndex: j.fromIndex, toIndex: j.toIndex, charCount: j.charCount,
  state: 'ready', attempts: 0, errors: 0, lostLeases: 0,
  createdAt: datetime(), notBefore: datetime()
})
RETURN count(*) AS created
