// Append items (JSON texts) to a session, in order, after its last one. Raising the session's item
// counter first takes its lock, so concurrent appends never share a position.
MATCH (s:Session {id: $sessionId})
SET s.itemSeq = coalesce(s.itemSeq, 0) + size($items)
WITH s, s.itemSeq - size($items) AS base
UNWIND range(0, size($items) - 1) AS n
CREATE (s)-[:HAS_ITEM]->(:SessionItem {sessionId: s.id, seq: base + n + 1, item: $items[n], at: $now})
RETURN base + size($items) AS last
