// What happened to one file of a project: its latest touches (tool calls naming it, of the given
// actions) with the request of the turn that made them, its latest failed calls (success = false)
// and the latest summaries of the project that mention the path (in their text or files). No row:
// the file was never touched in this project.
MATCH (f:File {project: $project, path: $path})
CALL (f) {
  MATCH (f)<-[r:TOUCHED]-(c:ToolCall)<-[:HAS_TOOL_CALL]-(t:Turn)
  WHERE r.action IN $actions
  WITH r, c, t ORDER BY coalesce(c.timestamp, t.timestamp) DESC, t.index DESC
  LIMIT $limit
  RETURN collect({action: r.action, tool: c.name, success: c.success, at: coalesce(c.timestamp, t.timestamp),
                  sessionId: t.sessionId, turnId: t.id, turnIndex: t.index,
                  request: left(t.userMessage, $requestChars),
                  result: CASE WHEN c.success = false THEN left(c.result, $requestChars) END}) AS touches
}
CALL (f) {
  MATCH (f)<-[r:TOUCHED]-(c:ToolCall)<-[:HAS_TOOL_CALL]-(t:Turn)
  WHERE c.success = false
  WITH r, c, t ORDER BY coalesce(c.timestamp, t.timestamp) DESC, t.index DESC
  LIMIT $failureLimit
  RETURN collect({action: r.action, tool: c.name, success: c.success, at: coalesce(c.timestamp, t.timestamp),
                  sessionId: t.sessionId, turnId: t.id, turnIndex: t.index,
                  request: left(t.userMessage, $requestChars), result: left(c.result, $requestChars)}) AS failures
}
CALL (f) {
  MATCH (m:Summary)
  WHERE m.projectPath = f.project
    AND (m.text CONTAINS f.path
         OR any(x IN coalesce(m.filesMentioned, []) WHERE x = f.path OR x ENDS WITH '/' + f.path))
  WITH m ORDER BY m.timestamp DESC
  LIMIT $summaryLimit
  RETURN collect({id: m.id, level: m.level, sessionId: m.sessionId, at: m.timestamp,
                  text: left(m.text, $summaryChars)}) AS summaries
}
RETURN f.project AS project, f.path AS path, touches, failures, summaries
