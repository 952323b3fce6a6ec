// Document expansion: contextText of the given turns = the text of their neighbours within $window
// turns in the same session (both sides), so a full-text hit can come from the surrounding talk.
// Called by the embedding pass for new turns and their $window predecessors. A long turn (user message
// + assistant reply over $longTurnChars characters; 0 = none is) gets an empty contextText: it is found
// by its own words.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WITH t, $longTurnChars > 0
        AND size(coalesce(t.userMessage, '')) + size(coalesce(t.assistantMessage, '')) > $longTurnChars AS isLong
WITH t, CASE WHEN isLong THEN [] ELSE COLLECT {
  MATCH (n:Turn {sessionId: t.sessionId})
  WHERE n.index >= t.index - $window AND n.index <= t.index + $window AND n.index <> t.index
  RETURN left(n.userMessage, $maxChars) + ' ' + left(n.assistantMessage, $maxChars) ORDER BY n.index
} END AS around
SET t.contextText = reduce(acc = '', s IN around | acc + s + '\n')
RETURN count(t) AS updated
