// What the neighbours' context of some short turns rests on: $query is a Lucene query over the turns'
// own joined text alone (turnText, shortTurnText of the turn_search index; built by
// graphmem.retrieval.lucene, the scope a zero-weight required clause), $ids the short turns scored
// with their neighbours' contextText. Each row: the turn's own score, the sum of its neighbours' own
// scores (turns of the same session within $window; a neighbour outside the first $fetch hits counts
// the lowest score fetched when the page was full, 0 otherwise) and whether the page was full.
CALL db.index.fulltext.queryNodes('turn_search', $query, {limit: $fetch}) YIELD node, score
WITH collect({id: node.id, sessionId: node.sessionId, index: node.index, score: score}) AS own
WITH own, CASE WHEN size(own) >= $fetch THEN reduce(m = own[0].score, o IN own |
            CASE WHEN o.score < m THEN o.score ELSE m END) ELSE 0.0 END AS floor
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WITH t, own, floor
RETURN t.id AS id,
       coalesce(head([o IN own WHERE o.id = t.id | o.score]), 0.0) AS own,
       reduce(acc = 0.0, n IN COLLECT {
         MATCH (n:Turn {sessionId: t.sessionId})
         WHERE n.index >= t.index - $window AND n.index <= t.index + $window AND n.index <> t.index
         RETURN n.id AS nid
       } | acc + coalesce(head([o IN own WHERE o.id = n | o.score]), floor)) AS neighbours
