// Delete facts by id (any version given): each one's current version and its whole SUPERSEDES
// history, then the subjects left without facts; scope counts follow. Returns what was deleted
// (current versions only).
MATCH (g:Fact) WHERE g.id IN $ids
MATCH (head:Fact)-[:SUPERSEDES*0..]->(g) WHERE head.supersededAt IS NULL
WITH DISTINCT head
OPTIONAL MATCH (s:FactScope {key: head.scopeKey})
SET s.count = CASE WHEN s.count > 0 THEN s.count - 1 ELSE 0 END
WITH head {.id, .type, .scopeKey} AS info, [(head)-[:ABOUT]->(x:Subject) | x] AS subjects,
     [(head)-[:SUPERSEDES*0..]->(v:Fact) | v] AS versions
FOREACH (v IN versions | DETACH DELETE v)
WITH collect(info) AS infos, reduce(acc = [], l IN collect(subjects) | acc + l) AS subjects
CALL (subjects) {
  UNWIND subjects AS x
  WITH DISTINCT x
  WITH x WHERE NOT EXISTS { (x)<-[:ABOUT]-() }
  DELETE x
}
UNWIND infos AS info
RETURN info.id AS id, info.type AS type, info.scopeKey AS scopeKey
