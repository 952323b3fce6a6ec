// The most used tools per project: calls, failures and mean duration of every tool name in each
// project (git root), most used first. A table, no graph.
// Parameters: $projectPath, one project's root directory, or null for every project,
//   e.g.  :param projectPath => '/home/me/code/shop'   or   :param projectPath => null
MATCH (t:Turn)-[:HAS_TOOL_CALL]->(c:ToolCall)
WHERE $projectPath IS NULL OR t.projectPath = $projectPath
WITH t.projectPath AS project, c.name AS tool, count(*) AS calls,
     count(CASE WHEN c.success = false THEN 1 END) AS failures, avg(c.durationMs) AS meanMs
RETURN project, tool, calls, failures, round(100.0 * failures / calls, 1) AS failurePercent,
       round(meanMs) AS meanDurationMs
ORDER BY project, calls DESC, tool
