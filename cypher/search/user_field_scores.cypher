// The request-field (userMessage) BM25 scores of some long turns whose request is short: $query is a
// Lucene query over that field alone (built by graphmem.retrieval.lucene, the scope a zero-weight
// required clause), $ids the turns whose share is wanted, $shortChars the request length from which a
// request keeps its full weight and is added to its reply (graphmem.retrieval.longturns reweighs the
// others with these scores).
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH node, score WHERE node.id IN $ids AND size(coalesce(node.userMessage, '')) < $shortChars
RETURN node.id AS id, score
