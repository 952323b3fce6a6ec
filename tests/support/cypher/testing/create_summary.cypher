// Tests and benchmarks only: a summary node as the worker writes it (properties, HAS_SUMMARY,
// SUMMARIZES to the given turns or summaries), pending embedding.
MATCH (s:Session {id: $sessionId})
CREATE (m:Summary {
  id: $id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, level: $level, text: $text,
  charCount: $charCount, turnCount: $turnCount, keyFindings: $keyFindings, filesMentioned: $filesMentioned,
  toolsUsed: $toolsUsed, topics: $topics, timestamp: $timestamp, method: 'extractive', embedState: 'pending'
})
CREATE (s)-[:HAS_SUMMARY {level: $level}]->(m)
WITH m
CALL (m) {
  UNWIND $childIds AS cid
  OPTIONAL MATCH (t:Turn {id: cid})
  OPTIONAL MATCH (c:Summary {id: cid})
  WITH m, coalesce(t, c) AS child WHERE child IS NOT NULL
  CREATE (m)-[:SUMMARIZES]->(child)
}
RETURN m.id AS id
