// The request-field (userMessage) BM25 scores of some turns: $query is a Lucene query over that field
// alone (built by graphmem.retrieval.lucene, the scope a zero-weight required clause), $ids the turns
// whose share is wanted. A long turn's full-text score is reweighed with them (graphmem.retrieval.longturns).
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH node, score WHERE node.id IN $ids
RETURN node.id AS id, score
