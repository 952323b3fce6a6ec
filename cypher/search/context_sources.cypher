// The turns' own full-text scores, to cap what short turns' neighbours' context adds: $query is a
// Lucene query over the turns' own joined text alone (turnText, shortTurnText of the turn_search
// index; built by graphmem.retrieval.lucene, the scope a zero-weight required clause). One row: the
// hits, each with its session and index (graphmem.retrieval.longturns finds a turn's neighbours
// among them), and how many turns each of the sessions $sessionIds holds (its last index).
CALL () {
  CALL db.index.fulltext.queryNodes('turn_search', $query, {limit: $fetch}) YIELD node, score
  RETURN collect({sessionId: node.sessionId, index: node.index, score: score}) AS own
}
CALL () {
  UNWIND $sessionIds AS sid
  MATCH (s:Session {id: sid})
  RETURN collect({sessionId: sid, turns: coalesce(s.turnCount, 0)}) AS sessions
}
RETURN own, sessions
