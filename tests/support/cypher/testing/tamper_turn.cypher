// Test support only: overwrite properties of a stored turn to damage it on purpose (a fault run's
// check must name it).
MATCH (t:Turn {id: $id})
SET t += $props
RETURN t.id AS id
