// Delete the live messages of one room (in batches of $batch); returns how many went.
MATCH (m:LiveMessage {room: $room})
WITH m LIMIT $batch
DETACH DELETE m
RETURN count(*) AS deleted
