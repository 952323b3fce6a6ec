// Test support only: overwrite properties of a summary to break an invariant on purpose (the
// checker must report it).
MATCH (m:Summary {id: $id})
SET m += $props
RETURN m.id AS id
