// Tests only: per turn of a session, its contextText, raw embedding and neighbour-averaged ctxEmbedding.
MATCH (t:Turn {sessionId: $sessionId})
RETURN t.index AS index, t.contextText AS contextText, t.embedding AS embedding, t.ctxEmbedding AS ctxEmbedding
ORDER BY t.index
