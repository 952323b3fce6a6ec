// Tests only: move a fact's expiry (to the past, to see it expire without waiting).
MATCH (f:Fact {id: $id})
SET f.expiresAt = $expiresAt
RETURN f.id AS id
