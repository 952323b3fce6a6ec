// The live messages a digest took, oldest first.
MATCH (m:LiveMessage {digestId: $id})
RETURN m.author AS author, m.text AS text, m.at AS at
ORDER BY m.at, m.id
