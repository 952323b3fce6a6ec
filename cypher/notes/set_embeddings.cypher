// Store computed embeddings on notes and mark them done.
UNWIND $rows AS r
MATCH (n:Note {key: r.key})
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
SET n.embedState = 'done'
RETURN count(n) AS updated
