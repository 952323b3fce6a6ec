// Benchmarks only: every turn of one working directory with its source id and raw stored vector
// (the dense-only baseline of the haystack benchmark ranks them itself).
MATCH (s:Session {cwd: $cwd})-[:HAS_TURN]->(t:Turn)
RETURN t.id AS id, t.sourceId AS sourceId, t.embedding AS embedding
