// Give a fact a chosen id (tests of id-prefix lookups need two ids sharing a prefix).
MATCH (f:Fact {id: $id})
SET f.id = $newId
RETURN f.id AS id
