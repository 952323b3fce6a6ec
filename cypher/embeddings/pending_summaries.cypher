// Summaries waiting for an embedding (oldest first), with their text.
MATCH (s:Summary {embedState: 'pending'})
WITH s ORDER BY s.timestamp
LIMIT $limit
RETURN s.id AS id, left(s.text, $maxChars) AS text, s.keyFindings AS keyFindings, s.topics AS topics
