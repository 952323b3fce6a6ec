// Facts nearest to the query vector that were extracted from turns of one scope: the seeds of the graph
// source's `fact` edge (a fact that matches the query lifts the turns it came from). The fact index
// covers every scope, so the $fetch nearest facts are read and those with no source turn in the scope
// dropped; facts remembered moments ago, whose vectors wait for the index (`vectorPendingSince`), are
// scanned too. At most $k are kept, best first. Current, unexpired facts only. $kind is session, cwd,
// project or all; $value the session id or path (null for all). Returned as cosine.
WITH 1 AS go WHERE $k > 0
CALL () {
  CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
  RETURN f, 2 * score - 1 AS cosine
  UNION ALL
  MATCH (f:Fact) USING INDEX f:Fact(vectorPendingSince)
  WHERE f.vectorPendingSince IS NOT NULL AND f.pendingEmbedding IS NOT NULL
  RETURN f, 2 * vector.similarity.cosine(f.pendingEmbedding, $vector) - 1 AS cosine
}
WITH f, max(cosine) AS cosine
WHERE f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  AND EXISTS {
    MATCH (f)-[:EXTRACTED_FROM]->(t:Turn)
    WHERE $kind = 'all' OR ($kind = 'session' AND t.sessionId = $value)
       OR ($kind = 'cwd' AND t.cwd = $value) OR ($kind = 'project' AND t.projectPath = $value)
  }
RETURN f.id AS id, cosine
ORDER BY cosine DESC, id
LIMIT $k
