// What happened to one file of a project (git root), newest first: every tool call that read,
// edited, wrote, searched or ran it, whether it failed, and the request of the turn that made it.
// Parameters: $projectPath, the project's root directory, and $path, the file relative to it (or
// absolute when it lies outside), e.g.  :param projectPath => '/home/me/code/shop'
//                                       :param path => 'src/cart.py'
// Graph: (:Turn)-[:HAS_TOOL_CALL]->(:ToolCall)-[:TOUCHED {action}]->(:File); table: one row per call.
MATCH history = (t:Turn)-[:HAS_TOOL_CALL]->(c:ToolCall)-[r:TOUCHED]->(f:File {project: $projectPath, path: $path})
RETURN history, r.action AS action, c.name AS tool, c.success AS success,
       left(t.userMessage, 160) AS request, left(c.result, 160) AS result,
       t.sessionId AS sessionId, t.index AS turnIndex, coalesce(c.timestamp, t.timestamp) AS at
ORDER BY at DESC
LIMIT 100
