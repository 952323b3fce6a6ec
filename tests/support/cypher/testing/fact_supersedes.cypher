// How many facts supersede the fact $id, and its scope's count of current facts.
MATCH (old:Fact {id: $id})
OPTIONAL MATCH (s:FactScope {key: old.scopeKey})
RETURN COUNT { (:Fact)-[:SUPERSEDES]->(old) } AS edges, s.count AS scopeCount
