// The request-field (userMessage) BM25 scores of some long turns: $query is a Lucene query over that
// field alone (built by graphmem.retrieval.lucene, the scope a zero-weight required clause), $ids the
// turns whose share is wanted. Each row has the request's length: graphmem.retrieval.longturns
// reweighs a short request scored with its reply's field and adds a long request's own score to a
// turn scored as one document.
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH node, score WHERE node.id IN $ids
RETURN node.id AS id, score, size(coalesce(node.userMessage, '')) AS requestChars
