// The pre-call injections logged in the store: how many, the characters they added, their latency.
MATCH (r:Retrieval)
RETURN count(r) AS injections, sum(coalesce(r.chars, 0)) AS chars, avg(r.latencyMs) AS latencyMsMean
