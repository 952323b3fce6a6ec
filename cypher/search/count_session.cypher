// How many turns and summaries one scope (Session id) holds: decides exact scan vs. vector index
// and how far to over-fetch (index-backed counts).
MATCH (s:Session {id: $value})
RETURN s.turnCount AS turns, COUNT { MATCH (m:Summary {sessionId: $value}) WHERE m.level >= 0 } AS summaries
