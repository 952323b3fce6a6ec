// Benchmarks only: turn id -> source id of every turn under a namespace (to re-score a kept LoCoMo load).
MATCH (s:Session)
WHERE s.cwd STARTS WITH $prefix
MATCH (s)-[:HAS_TURN]->(t:Turn)
RETURN t.id AS id, t.sourceId AS sourceId
