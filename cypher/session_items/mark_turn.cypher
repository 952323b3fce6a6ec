// Record that the items up to $seq are held by a turn, if no other writer recorded it first
// (the session's turn mark is still $expected); returns a row only when this call recorded it.
MATCH (s:Session {id: $sessionId})
SET s.itemSeq = coalesce(s.itemSeq, 0)
WITH s
WHERE coalesce(s.itemTurnSeq, 0) = $expected
SET s.itemTurnSeq = $seq
RETURN s.itemTurnSeq AS seq
