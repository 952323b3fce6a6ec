// How many live messages the rooms $rooms hold.
MATCH (m:LiveMessage)
WHERE m.room IN $rooms
RETURN count(m) AS count
