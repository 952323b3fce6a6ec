// Full-text (BM25) candidates of one scope (working directory). $query is a Lucene query built by
// graphmem.retrieval.lucene (user terms escaped; the scope is also a zero-weight required clause, so
// Lucene filters it); the exact scope and level checks here are authoritative. One row:
// how many Lucene returned (the caller widens $fetch when a full page was filtered too much), the hits
// (with their session and, for turns, their length: the stored chars, else counted), when
// $sessionFetch > 0 the BM25 scores of the scope's whole-session documents for $sessionQuery
// (session_search index; the caller adds them, weighted, to those sessions' hits, except to long turns'),
// and when $joinedFetch > 0 the turns scored as one document (request and reply joined, the
// turn_search index) for $joinedQuery: long turns ($joinLong, turnText) and short ones ($joinShort,
// shortTurnText, with their neighbours' contextText); those turns then leave the memory_search hits.
// With $capContext, the short ones carry their session's turn count, and `own` holds the turns' own
// scores for $ownQuery (turnText and shortTurnText alone; graphmem.retrieval.longturns caps what a
// short turn's neighbours' context adds by those neighbours' own scores).
CALL () {
  WITH 1 AS go WHERE $sessionFetch > 0
  CALL db.index.fulltext.queryNodes('session_search', $sessionQuery, {limit: $sessionFetch}) YIELD node, score
  WITH node, score WHERE score > 0 AND node.cwd = $value
  RETURN collect({sessionId: node.id, score: score}) AS sessions
}
CALL () {
  WITH 1 AS go WHERE $joinedFetch > 0
  CALL db.index.fulltext.queryNodes('turn_search', $joinedQuery, {limit: $joinedFetch}) YIELD node, score
  WITH node, score WHERE score > 0 AND node.cwd = $value
    AND (($joinLong AND node.turnText IS NOT NULL) OR ($joinShort AND node.shortTurnText IS NOT NULL))
  RETURN collect({id: node.id, kind: 'turn', score: score, sessionId: node.sessionId, chars: node.chars,
                  index: node.index, joined: true,
                  turns: CASE WHEN $capContext AND node.shortTurnText IS NOT NULL
                    THEN COLLECT { MATCH (s:Session {id: node.sessionId}) RETURN s.turnCount }[0] END}) AS joined
}
CALL () {
  WITH 1 AS go WHERE $capContext AND $joinedFetch > 0
  CALL db.index.fulltext.queryNodes('turn_search', $ownQuery, {limit: $joinedFetch}) YIELD node, score
  RETURN collect({sessionId: node.sessionId, index: node.index, score: score}) AS own
}
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH sessions, joined, own, collect({node: node, score: score}) AS raw
RETURN size(raw) AS fetched, sessions, joined, own,
       [r IN raw WHERE r.score > 0 AND r.node.cwd = $value
          AND ((r.node:Turn AND $includeTurns) OR (r.node:Summary AND r.node.level IN $levels))
          AND NOT ($joinedFetch > 0 AND (($joinLong AND r.node.turnText IS NOT NULL)
                                          OR ($joinShort AND r.node.shortTurnText IS NOT NULL)))
        | {id: r.node.id, kind: CASE WHEN r.node:Turn THEN 'turn' ELSE 'summary' END, score: r.score,
           sessionId: r.node.sessionId,
           chars: CASE WHEN r.node:Turn THEN coalesce(r.node.chars,
             size(coalesce(r.node.userMessage, '')) + size(coalesce(r.node.assistantMessage, ''))) END
          }][..$limit] AS hits
