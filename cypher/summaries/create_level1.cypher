// After worker/lock_jobs, in the job's one transaction: if this claim (token) still owns the job and
// no child is covered yet, write a level-1 summary over its turns and delete the job (no row otherwise):
// SUMMARIZES to each turn (childId unique: no turn gets two level-1 summaries), turns marked
// summaryState 'done'; charCount, turnCount, timestamp and the index range come from the turns.
// HAS_SUMMARY comes before the children: store_turn locks the session then the last turn, so
// taking them in the same order cannot deadlock with it.
MATCH (j:SummaryJob {id: $jobId})
WHERE j.state = 'running' AND j.token = $token
  AND NOT EXISTS { UNWIND $childIds AS cid MATCH ()-[r:SUMMARIZES {childId: cid}]->() RETURN r }
MATCH (s:Session {id: $sessionId})
CREATE (m:Summary {id: $id})
SET m += $props, m.sessionId = s.id, m.cwd = s.cwd, m.projectPath = s.projectPath, m.level = 1,
    m.coverKey = $coverKey, m.embedState = 'pending', m.rollupState = 'pending', m.createdAt = datetime()
CREATE (s)-[:HAS_SUMMARY {level: 1}]->(m)
WITH j, m
CALL (m) {
  UNWIND range(0, size($childIds) - 1) AS i
  MATCH (t:Turn {id: $childIds[i], sessionId: m.sessionId})
  CREATE (m)-[:SUMMARIZES {childId: t.id, order: i}]->(t)
  SET t.summaryState = 'done'
  RETURN count(t) AS linked, sum(t.charCount) AS chars, max(t.timestamp) AS latest,
         min(t.index) AS fromIndex, max(t.index) AS toIndex
}
SET m.charCount = chars, m.turnCount = linked, m.timestamp = latest, m.fromIndex = fromIndex, m.toIndex = toIndex
WITH j, m, linked
DELETE j
RETURN m.id AS id, linked
