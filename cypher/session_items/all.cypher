// Every item of a session after position $after, in order.
MATCH (i:SessionItem {sessionId: $sessionId})
WHERE i.seq > $after
RETURN i.seq AS seq, i.item AS item
ORDER BY i.seq
