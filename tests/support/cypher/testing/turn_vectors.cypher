// Tests only: per turn of a session, its contextText, raw embedding and neighbour-averaged ctxEmbedding,
// its joined text (turnText for a long turn, shortTurnText for any other) and the hash of the text its vector read.
MATCH (t:Turn {sessionId: $sessionId})
RETURN t.index AS index, t.contextText AS contextText, t.embedding AS embedding, t.ctxEmbedding AS ctxEmbedding,
       t.turnText AS turnText, t.shortTurnText AS shortTurnText, t.embeddingHash AS embeddingHash
ORDER BY t.index
