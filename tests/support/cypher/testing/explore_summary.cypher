// Test data for the explore queries (tests/integration/test_explore.py only): one Summary of a
// session as the summarizer worker writes it, covering turns (level 1) or summaries (level n+1).
MATCH (s:Session {id: $sessionId})
CREATE (m:Summary {
  id: $id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, level: $level, text: $text,
  charCount: size($text), turnCount: $turnCount, keyFindings: [], filesMentioned: [], toolsUsed: [],
  topics: [], timestamp: datetime(), method: 'test'
})
CREATE (s)-[:HAS_SUMMARY {level: $level}]->(m)
WITH m
CALL (m) {
  UNWIND $childIds AS childId
  CALL (childId) {
    MATCH (child:Turn {id: childId}) RETURN child
    UNION
    MATCH (child:Summary {id: childId}) RETURN child
  }
  CREATE (m)-[:SUMMARIZES]->(child)
}
RETURN m.id AS id
