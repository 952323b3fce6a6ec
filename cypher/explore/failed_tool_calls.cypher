// Failed tool calls (success = false) of one project (git root), newest first, with the turn that
// made them and the start of their result (the error).
// Parameters: $projectPath, the project's root directory, e.g.  :param projectPath => '/home/me/code/shop'
// Graph: (:Turn)-[:HAS_TOOL_CALL]->(:ToolCall); table: one row per failed call.
MATCH call = (t:Turn)-[:HAS_TOOL_CALL]->(c:ToolCall)
WHERE t.projectPath = $projectPath AND c.success = false
RETURN call, c.name AS tool, left(c.args, 160) AS args, left(c.result, 200) AS result,
       c.durationMs AS durationMs, t.sessionId AS sessionId, t.index AS turnIndex,
       coalesce(c.timestamp, t.timestamp) AS at
ORDER BY at DESC
LIMIT 100
