// Append turns (with their tool calls and the files those name) to a session, in order: one turn for store_turn, a batch
// for import_turns. Rows whose sourceKey is already stored are skipped, so importing a transcript
// again adds nothing.
// Setting s.turnCount first takes the session's write lock: concurrent writers to one session are
// serialised, and indexes stay unique and contiguous (also enforced by the (sessionId, index)
// uniqueness constraint). NEXT links are made from the collected chain (the session's previous
// last turn first), not by one index seek per row. No row: unknown session, or nothing new.
MATCH (s:Session {id: $sessionId})
SET s.turnCount = coalesce(s.turnCount, 0)
WITH s
UNWIND $rows AS r
WITH s, r
WHERE r.sourceKey IS NULL OR NOT EXISTS { MATCH (:Turn {sourceKey: r.sourceKey}) }
WITH s, collect(r) AS fresh
WITH s, fresh, s.turnCount AS base
SET s.turnCount = base + size(fresh)
WITH s, fresh, base
OPTIONAL MATCH (last:Turn {sessionId: s.id, index: base})
WITH s, fresh, base, last
UNWIND range(0, size(fresh) - 1) AS i
WITH s, last, base, fresh[i] AS r, base + i + 1 AS idx
CREATE (t:Turn {
  id: r.id,
  sessionId: s.id,
  cwd: s.cwd,
  projectPath: s.projectPath,
  index: idx,
  userMessage: r.userMessage,
  assistantMessage: r.assistantMessage,
  timestamp: r.timestamp,
  charCount: r.charCount,
  sourceId: r.sourceId,
  sourceKey: r.sourceKey,
  embedState: 'pending',
  summaryState: 'pending'
})
CREATE (s)-[:HAS_TURN {index: idx}]->(t)
FOREACH (c IN r.toolCalls |
  CREATE (t)-[:HAS_TOOL_CALL {order: c.order}]->(tc:ToolCall {
    id: c.id, sessionId: s.id, name: c.name, args: c.args, result: c.result, success: c.success,
    durationMs: c.durationMs, timestamp: c.timestamp, sourceId: c.sourceId
  })
  // the files the call names: a relative path is resolved against the session's directory, and
  // kept relative to the project root when it lies inside (one File per project and path)
  FOREACH (f IN [x IN [y IN coalesce(c.files, []) |
                       {action: y.action,
                        full: CASE WHEN y.path STARTS WITH '/' THEN y.path
                                   WHEN s.cwd ENDS WITH '/' THEN s.cwd + y.path
                                   ELSE s.cwd + '/' + y.path END}] |
                 {action: x.action,
                  path: CASE WHEN s.projectPath <> '/' AND x.full STARTS WITH s.projectPath + '/'
                             THEN substring(x.full, size(s.projectPath) + 1) ELSE x.full END}] |
    MERGE (file:File {project: s.projectPath, path: f.path})
    CREATE (tc)-[:TOUCHED {action: f.action}]->(file)
  )
)
WITH s, last, base, collect(t) AS created
WITH s, base, CASE WHEN last IS NULL THEN created ELSE [last] + created END AS chain, size(created) AS n,
     reduce(m = null, x IN created | CASE WHEN m IS NULL OR x.timestamp > m THEN x.timestamp ELSE m END) AS latest
FOREACH (i IN range(1, size(chain) - 1) | FOREACH (a IN [chain[i - 1]] | FOREACH (b IN [chain[i]] | CREATE (a)-[:NEXT]->(b))))
SET s.lastActivityAt = CASE WHEN latest IS NOT NULL AND (s.lastActivityAt IS NULL OR s.lastActivityAt < latest)
                            THEN latest ELSE s.lastActivityAt END
RETURN n AS created, base + n AS lastIndex
