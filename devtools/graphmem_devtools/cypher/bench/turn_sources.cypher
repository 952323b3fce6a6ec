// Benchmarks only: turn id -> source id (and working directory) of every turn under a namespace (to
// re-score a kept LoCoMo load, or remember its observations against their turns).
MATCH (s:Session)
WHERE s.cwd STARTS WITH $prefix
MATCH (s)-[:HAS_TURN]->(t:Turn)
RETURN t.id AS id, t.sourceId AS sourceId, s.cwd AS cwd
