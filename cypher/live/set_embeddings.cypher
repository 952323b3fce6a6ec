// Store computed embeddings on live messages (compact vector storage) and mark them done.
UNWIND $rows AS r
MATCH (m:LiveMessage {id: r.id})
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
SET m.embedState = 'done'
RETURN count(m) AS updated
