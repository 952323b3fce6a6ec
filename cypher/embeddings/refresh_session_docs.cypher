// The whole-session BM25 document: sessionText = the (capped) text of the session's latest $maxTurns turns,
// indexed by the session_search full-text index. Rebuilt by the embedding pass for the sessions of newly
// embedded turns (never on the store_turn write path).
UNWIND $sessionIds AS sid
MATCH (s:Session {id: sid})
WITH s, COLLECT {
  MATCH (s)-[:HAS_TURN]->(t:Turn)
  RETURN left(t.userMessage, $maxChars) + ' ' + left(t.assistantMessage, $maxChars) AS text
  ORDER BY t.index DESC LIMIT $maxTurns
} AS texts
SET s.sessionText = reduce(acc = '', x IN texts | acc + x + '\n'), s.sessionTextTurns = size(texts)
RETURN count(s) AS updated
