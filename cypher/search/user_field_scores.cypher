// The request-field (userMessage) BM25 scores of some long turns: $query is a Lucene query over that
// field alone (built by graphmem.retrieval.lucene, the scope a zero-weight required clause), $ids the
// turns whose share is wanted, `short` whether the request is under $shortChars (such a request
// counts less; graphmem.retrieval.longturns combines these scores with each turn's whole score).
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH node, score WHERE node.id IN $ids
RETURN node.id AS id, score, size(coalesce(node.userMessage, '')) < $shortChars AS short
