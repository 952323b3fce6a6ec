// Summaries waiting for an embedding (oldest first); only those of directory $path and below unless $path is null, with their text.
MATCH (s:Summary {embedState: 'pending'})
WHERE $path IS NULL OR s.cwd = $path OR s.cwd STARTS WITH $prefix
WITH s ORDER BY s.timestamp
LIMIT $limit
RETURN s.id AS id, left(s.text, $maxChars) AS text, s.keyFindings AS keyFindings, s.topics AS topics
