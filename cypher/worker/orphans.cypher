// Delete jobs and planning cursors whose session no longer exists (a session deleted while a
// planner was queueing work for it).
CALL () {
  MATCH (j:SummaryJob)
  WHERE NOT EXISTS { MATCH (:Session {id: j.sessionId}) }
  WITH j LIMIT $limit
  DELETE j
  RETURN count(*) AS jobs
}
CALL () {
  MATCH (c:SummaryCursor)
  WHERE NOT EXISTS { MATCH (:Session {id: c.sessionId}) }
  WITH c LIMIT $limit
  DELETE c
  RETURN count(*) AS cursors
}
RETURN jobs, cursors
