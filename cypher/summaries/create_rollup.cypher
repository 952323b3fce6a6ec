// After worker/lock_jobs, in the job's one transaction: if this claim (token) still owns the job and
// no child is covered yet, write a level-$level summary over level-($level - 1) summaries and delete
// the job (no row otherwise): SUMMARIZES to each child (childId unique), children marked rollupState 'done';
// charCount, turnCount, timestamp and the turn index range are the children's sums / extremes.
// HAS_SUMMARY comes before the children (the lock order store_turn uses: session, then nodes).
MATCH (j:SummaryJob {id: $jobId})
WHERE j.state = 'running' AND j.token = $token
  AND NOT EXISTS { UNWIND $childIds AS cid MATCH ()-[r:SUMMARIZES {childId: cid}]->() RETURN r }
MATCH (s:Session {id: $sessionId})
CREATE (m:Summary {id: $id})
SET m += $props, m.sessionId = s.id, m.cwd = s.cwd, m.projectPath = s.projectPath, m.level = $level,
    m.coverKey = $coverKey, m.embedState = 'pending', m.rollupState = 'pending', m.createdAt = datetime()
CREATE (s)-[:HAS_SUMMARY {level: $level}]->(m)
WITH j, m
CALL (m) {
  UNWIND range(0, size($childIds) - 1) AS i
  MATCH (c:Summary {id: $childIds[i], sessionId: m.sessionId, level: m.level - 1})
  CREATE (m)-[:SUMMARIZES {childId: c.id, order: i}]->(c)
  SET c.rollupState = 'done'
  RETURN count(c) AS linked, sum(c.charCount) AS chars, sum(c.turnCount) AS turns, max(c.timestamp) AS latest,
         min(c.fromIndex) AS fromIndex, max(c.toIndex) AS toIndex
}
SET m.charCount = chars, m.turnCount = turns, m.timestamp = latest, m.fromIndex = fromIndex, m.toIndex = toIndex
WITH j, m, linked
DELETE j
RETURN m.id AS id, linked
