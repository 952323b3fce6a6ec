// Full-text (BM25) candidates of one scope (project (git root)). $query is a Lucene query built by
// graphmem.retrieval.lucene (user terms escaped; the scope is also a zero-weight required clause, so
// Lucene filters it); the exact scope and level checks here are authoritative. One row:
// how many Lucene returned (the caller widens $fetch when a full page was filtered too much) and the hits.
CALL db.index.fulltext.queryNodes('memory_search', $query, {limit: $fetch}) YIELD node, score
WITH collect({node: node, score: score}) AS raw
RETURN size(raw) AS fetched,
       [r IN raw WHERE r.score > 0 AND r.node.projectPath = $value
          AND ((r.node:Turn AND $includeTurns) OR (r.node:Summary AND r.node.level IN $levels))
        | {id: r.node.id, kind: CASE WHEN r.node:Turn THEN 'turn' ELSE 'summary' END, score: r.score}][..$limit] AS hits
