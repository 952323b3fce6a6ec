// Up to $batch embedded long turns (user message + assistant reply over $longTurnChars characters)
// that have no turnText yet (embedded before the joined documents existed) get it: request and reply
// as one document for the long_turn_search full-text index, as the embedding pass now writes it.
MATCH (t:Turn {embedState: 'done'})
WHERE t.turnText IS NULL
  AND coalesce(t.chars, size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, ''))) > $longTurnChars
WITH t LIMIT $batch
SET t.turnText = coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, '')
RETURN count(t) AS joined
