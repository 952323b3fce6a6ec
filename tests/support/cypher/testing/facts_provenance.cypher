// Tests only: the turn a fact was extracted from.
MATCH (f:Fact {id: $id})-[:EXTRACTED_FROM]->(t:Turn)
RETURN t.id AS turnId
