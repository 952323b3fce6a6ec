// Live messages not embedded yet, oldest first.
MATCH (m:LiveMessage {embedState: 'pending'})
RETURN m.id AS id, m.author AS author, m.text AS text
ORDER BY m.at
LIMIT $limit
