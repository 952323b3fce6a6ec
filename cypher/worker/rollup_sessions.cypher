// (session, level) pairs whose level-n summaries not yet queued for a level-(n+1) summary cover
// more raw characters than that level's threshold ($threshold * $growth^(n-1)), or are at least
// $maxChildren summaries. Only sessions of directory $path and below unless $path is null.
MATCH (m:Summary {rollupState: 'pending'})
WHERE $path IS NULL OR m.cwd = $path OR m.cwd STARTS WITH $prefix
WITH m.sessionId AS sessionId, m.level AS level, collect(m) AS open
OPTIONAL MATCH (c:SummaryCursor {key: sessionId + '|' + toString(level + 1)})
WITH sessionId, level, open, coalesce(c.through, 0) AS through
WITH sessionId, level, [m IN open WHERE m.fromIndex > through] AS todo
WITH sessionId, level, size(todo) AS n, reduce(chars = 0, m IN todo | chars + m.charCount) AS chars
WHERE n >= $minChildren AND (chars > $threshold * ($growth ^ (level - 1)) OR n >= $maxChildren)
RETURN sessionId, level
ORDER BY level
LIMIT $limit
