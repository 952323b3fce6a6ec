// Tests only: per turn of a session, its index, embedding state, summary state and contextText.
MATCH (t:Turn {sessionId: $sessionId})
RETURN t.index AS index, t.embedState AS embedState, t.summaryState AS summaryState,
       t.contextText AS contextText, t.embedding IS NOT NULL AS hasEmbedding
ORDER BY t.index
