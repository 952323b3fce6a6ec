// Notes not embedded yet, with the text to embed (title, then the start of the text).
MATCH (n:Note {embedState: 'pending'})
RETURN n.key AS key, n.title AS title, left(n.text, $maxChars) AS text
LIMIT $limit
