// Sessions with turns waiting for a level-1 summary beyond what is already queued (the session's
// level-1 cursor); only sessions of directory $path and below unless $path is null.
MATCH (t:Turn {summaryState: 'pending'})
WHERE $path IS NULL OR t.cwd = $path OR t.cwd STARTS WITH $prefix
WITH t.sessionId AS sessionId, max(t.index) AS top
OPTIONAL MATCH (c:SummaryCursor {key: sessionId + '|1'})
WITH sessionId, top, coalesce(c.through, 0) AS through
WHERE through < top
RETURN sessionId
LIMIT $limit
