// Remove and return the last item of a session (under the session's lock, as appends take it).
MATCH (s:Session {id: $sessionId})
SET s.itemSeq = coalesce(s.itemSeq, 0)
WITH s
MATCH (s)-[:HAS_ITEM]->(i:SessionItem)
WITH i ORDER BY i.seq DESC LIMIT 1
WITH i, i.item AS item, i.seq AS seq
DETACH DELETE i
RETURN seq, item
