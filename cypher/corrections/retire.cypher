// A correction: the current fact $oldId, contradicted by the newer fact $newId of the same scope, is retired.
// It stays as history behind SUPERSEDES (with the rule that retired it), keeps its validity window
// (createdAt until supersededAt) and leaves the vector index; its scope counts one current fact less.
// Setting s.lockedAt first takes the scope's write lock (as remember does), and writing old.retiring
// takes the fact's own: two corrections of one fact are serialised, and the second sees the first's
// supersededAt and SUPERSEDES edge and retires nothing.
MATCH (new:Fact {id: $newId}), (old:Fact {id: $oldId})
WHERE old.scopeKey = new.scopeKey AND old <> new
OPTIONAL MATCH (s:FactScope {key: old.scopeKey})
SET s.lockedAt = datetime(), old.retiring = true
REMOVE old.retiring
WITH s, new, old
WHERE old.supersededAt IS NULL AND new.supersededAt IS NULL AND NOT EXISTS { (:Fact)-[:SUPERSEDES]->(old) }
CREATE (new)-[:SUPERSEDES {at: $now, rule: $rule}]->(old)
SET old.supersededAt = $now, old.updatedAt = $now
REMOVE old.embedding, old.pendingEmbedding, old.vectorPendingSince
SET s.count = s.count - 1
RETURN old.id AS retired
