// Store neighbour-averaged turn vectors (normalise(e_i + w * sum of the same-session neighbours' e_j)),
// the vectors the turn side of the dense search uses. The raw embedding is left untouched.
UNWIND $rows AS r
MATCH (t:Turn {id: r.id})
CALL db.create.setNodeVectorProperty(t, 'ctxEmbedding', r.embedding)
RETURN count(t) AS updated
