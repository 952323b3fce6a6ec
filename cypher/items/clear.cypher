// Delete every item of a store; returns how many.
MATCH (i:Item {store: $store})
DETACH DELETE i
RETURN count(*) AS deleted
