// graphmem reindex: the next $limit facts after id $after (id order: a cursor over the unique index),
// with the text to embed. Retired (superseded) facts get no vector: only their old one is dropped.
MATCH (f:Fact)
WHERE f.id > $after
WITH f ORDER BY f.id
LIMIT $limit
RETURN f.id AS id, f.content AS content, f.supersededAt IS NULL AS current
