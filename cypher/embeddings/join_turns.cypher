// Up to $batch embedded turns that have no joined document yet (embedded before the joined documents
// existed) get it, as the embedding pass now writes it: request and reply as one document for the
// turn_search full-text index, in turnText for a long turn (user message + assistant reply over
// $longTurnChars characters; 0 = none is), in shortTurnText for any other.
MATCH (t:Turn {embedState: 'done'})
WHERE t.turnText IS NULL AND t.shortTurnText IS NULL
WITH t LIMIT $batch
WITH t, coalesce(t.chars, size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, ''))) AS chars,
     coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, '') AS joined
WITH t, joined, $longTurnChars > 0 AND chars > $longTurnChars AS isLong
SET t.turnText = CASE WHEN isLong THEN joined END, t.shortTurnText = CASE WHEN isLong THEN null ELSE joined END
RETURN count(t) AS joined
