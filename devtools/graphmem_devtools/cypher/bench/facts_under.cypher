// Benchmarks only: how many current facts of projects under a namespace there are (a kept LoCoMo load
// with its observations remembered as facts).
MATCH (f:Fact)
WHERE f.scopeKey STARTS WITH 'project:' + $prefix AND f.supersededAt IS NULL
RETURN count(f) AS facts
