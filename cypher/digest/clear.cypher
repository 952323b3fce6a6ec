// Delete the live messages one digest took (in batches of $batch); returns how many went.
MATCH (m:LiveMessage {digestId: $id})
WITH m LIMIT $batch
DETACH DELETE m
RETURN count(*) AS deleted
