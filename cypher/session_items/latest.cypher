// The last $limit items of a session, newest first.
MATCH (i:SessionItem {sessionId: $sessionId})
RETURN i.seq AS seq, i.item AS item
ORDER BY i.seq DESC
LIMIT $limit
