// Test support only: delete a stored turn to lose it on purpose (a fault run's check must name it).
MATCH (t:Turn {id: $id})
DETACH DELETE t
RETURN count(*) AS removed
