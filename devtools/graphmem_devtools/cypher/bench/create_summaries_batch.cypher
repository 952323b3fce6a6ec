// Benchmarks only: many summaries at once (UNWIND), as the worker writes them, pending embedding.
UNWIND $rows AS r
MATCH (s:Session {id: r.sessionId})
CREATE (m:Summary {
  id: r.id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, level: r.level, text: r.text,
  charCount: size(r.text), turnCount: r.turnCount, keyFindings: r.keyFindings, filesMentioned: r.filesMentioned,
  toolsUsed: [], topics: [], timestamp: r.timestamp, method: 'extractive', embedState: 'pending'
})
CREATE (s)-[:HAS_SUMMARY {level: r.level}]->(m)
RETURN count(m) AS created
