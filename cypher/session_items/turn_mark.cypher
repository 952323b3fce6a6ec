// The position of the last item held by a turn (0: none).
MATCH (s:Session {id: $sessionId})
RETURN coalesce(s.itemTurnSeq, 0) AS seq
