// Items under a namespace prefix whose text matches a Lucene query, best first (BM25 score).
CALL db.index.fulltext.queryNodes('item_search', $lucene) YIELD node, score
WITH node AS i, score
WHERE i.store = $store AND i.namespace[0..size($prefix)] = $prefix
RETURN i.namespace AS namespace, i.key AS key, i.value AS value, i.createdAt AS createdAt, i.updatedAt AS updatedAt,
       score
ORDER BY score DESC, i.updatedAt DESC, i.nsKey, i.key
