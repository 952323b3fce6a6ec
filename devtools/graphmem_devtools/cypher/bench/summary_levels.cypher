// Benchmarks only: how many summaries each level holds under a namespace (after the worker ran).
MATCH (s:Session)
WHERE s.cwd STARTS WITH $prefix
MATCH (s)-[:HAS_SUMMARY]->(m:Summary)
RETURN m.level AS level, count(m) AS n
ORDER BY level
