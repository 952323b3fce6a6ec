// Whether the fact $newId retired the fact $oldId, in corrections/retire's shape: asked after a commit
// whose reply was lost, whose outcome is then unknown.
MATCH (:Fact {id: $newId})-[:SUPERSEDES]->(old:Fact {id: $oldId})
RETURN old.id AS retired
