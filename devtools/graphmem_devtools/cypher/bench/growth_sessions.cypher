// Benchmarks only (graphmem bench growth): create whole synthetic sessions, a batch per statement, as
// store_turn and the worker would have left them: Directory, Session, turns (one tool call each) with
// their HAS_TURN and NEXT chain, level-1 summaries over consecutive turns and one level-2 summary over
// those (SUMMARIZES with childId/order), every turn and summary with its given (synthetic) vector
// already set (compact vector storage, embedState 'done').
UNWIND $sessions AS r
MERGE (d:Directory {path: r.cwd})
CREATE (s:Session {id: r.id, cwd: r.cwd, projectPath: r.projectPath, agent: 'bench', startedAt: r.startedAt,
                   lastActivityAt: r.lastActivityAt, turnCount: size(r.turns)})
CREATE (d)-[:HAS_SESSION]->(s)
WITH s, r
CALL (s, r) {
  UNWIND r.turns AS x
  CREATE (t:Turn {id: x.id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, index: x.index,
                  userMessage: x.userMessage, assistantMessage: x.assistantMessage, timestamp: x.timestamp,
                  charCount: size(x.userMessage) + size(x.assistantMessage), embedState: 'done',
                  summaryState: 'done', embeddingModel: $model})
  CREATE (s)-[:HAS_TURN {index: x.index}]->(t)
  CREATE (t)-[:HAS_TOOL_CALL {order: 0}]->(:ToolCall {id: x.toolId, sessionId: s.id, name: x.toolName,
                                                      args: x.toolArgs, result: x.toolResult, success: true,
                                                      durationMs: x.toolMs, timestamp: x.timestamp})
  WITH t, x
  CALL db.create.setNodeVectorProperty(t, 'embedding', x.embedding)
  RETURN collect(t) AS turns
}
CALL (turns) {
  UNWIND range(0, size(turns) - 2) AS i
  WITH turns[i] AS a, turns[i + 1] AS b
  CREATE (a)-[:NEXT]->(b)
}
CALL (s, r, turns) {
  UNWIND r.level1 AS m
  CREATE (n:Summary {id: m.id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, level: 1, text: m.text,
                     charCount: size(m.text), turnCount: m.to - m.from + 1, keyFindings: m.keyFindings,
                     filesMentioned: [], toolsUsed: [m.tool], topics: [], timestamp: m.timestamp,
                     method: 'extractive', coverKey: 'bench:' + m.id, embedState: 'done',
                     rollupState: CASE WHEN size(r.level2) > 0 THEN 'done' ELSE 'pending' END,
                     embeddingModel: $model, fromIndex: m.from + 1, toIndex: m.to + 1, createdAt: m.timestamp})
  CREATE (s)-[:HAS_SUMMARY {level: 1}]->(n)
  WITH n, m
  CALL db.create.setNodeVectorProperty(n, 'embedding', m.embedding)
  WITH n, m
  CALL (n, m, turns) {
    UNWIND range(m.from, m.to) AS i
    WITH n, turns[i] AS t, i - m.from AS ord
    CREATE (n)-[:SUMMARIZES {childId: t.id, order: ord}]->(t)
  }
  RETURN collect(n) AS level1
}
CALL (s, r, level1) {
  UNWIND r.level2 AS m
  CREATE (n:Summary {id: m.id, sessionId: s.id, cwd: s.cwd, projectPath: s.projectPath, level: 2, text: m.text,
                     charCount: size(m.text), turnCount: size(r.turns), keyFindings: m.keyFindings,
                     filesMentioned: [], toolsUsed: [], topics: [], timestamp: m.timestamp,
                     method: 'extractive', coverKey: 'bench:' + m.id, embedState: 'done', rollupState: 'pending',
                     embeddingModel: $model, fromIndex: 1, toIndex: size(r.turns), createdAt: m.timestamp})
  CREATE (s)-[:HAS_SUMMARY {level: 2}]->(n)
  WITH n, m
  CALL db.create.setNodeVectorProperty(n, 'embedding', m.embedding)
  WITH n
  CALL (n, level1) {
    UNWIND range(0, size(level1) - 1) AS i
    WITH n, level1[i] AS c, i AS ord
    CREATE (n)-[:SUMMARIZES {childId: c.id, order: ord}]->(c)
  }
}
WITH count(s) AS created
RETURN created
