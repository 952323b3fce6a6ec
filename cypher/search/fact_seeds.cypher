// Facts nearest to the query vector that were extracted from turns of one scope: the seeds of the graph
// source's `fact` edge (a fact that matches the query lifts the turns it came from). The fact index
// covers every scope, so the $fetch nearest facts are read and those with no source turn in the scope
// dropped; facts remembered moments ago, whose vectors wait for the index (`vectorPendingSince`), are
// scanned too. At most $k are kept, best first. Current, unexpired facts only. $kind is session, cwd,
// project or all; $value the session id or path (null for all). Returned as cosine, one row per fact
// kept (one row of nulls when none is), each with `fetched`: how many facts the index gave. When that
// is $fetch, the index holds more, and a scope's facts may lie beyond them (search/fact_seeds_exact_*).
WITH 1 AS go WHERE $k > 0
CALL () {
  CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
  RETURN f, 2 * score - 1 AS cosine, 1 AS indexed
  UNION ALL
  MATCH (f:Fact) USING INDEX f:Fact(vectorPendingSince)
  WHERE f.vectorPendingSince IS NOT NULL AND f.pendingEmbedding IS NOT NULL
  RETURN f, 2 * vector.similarity.cosine(f.pendingEmbedding, $vector) - 1 AS cosine, 0 AS indexed
}
WITH f, max(cosine) AS cosine, max(indexed) AS indexed
WITH collect({f: f, cosine: cosine}) AS found, sum(indexed) AS fetched
OPTIONAL CALL (found) {
  UNWIND found AS row
  WITH row.f AS f, row.cosine AS cosine
  WHERE f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
    AND EXISTS {
      MATCH (f)-[:EXTRACTED_FROM]->(t:Turn)
      WHERE $kind = 'all' OR ($kind = 'session' AND t.sessionId = $value)
         OR ($kind = 'cwd' AND t.cwd = $value) OR ($kind = 'project' AND t.projectPath = $value)
    }
  RETURN f.id AS id, cosine
  ORDER BY cosine DESC, id
  LIMIT $k
}
RETURN id, cosine, fetched
ORDER BY cosine DESC, id
