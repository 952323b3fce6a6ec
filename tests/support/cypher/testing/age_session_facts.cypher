// Tests only: date a session's start and last activity, and the creation of a scope's facts, back
// to $at (listings then print the same relative time in every run of a test).
MATCH (s:Session {id: $sessionId})
SET s.startedAt = $at, s.lastActivityAt = $at
WITH s
OPTIONAL MATCH (f:Fact {scopeKey: $scopeKey})
SET f.createdAt = $at
RETURN count(f) AS facts
