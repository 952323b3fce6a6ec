// Document expansion: contextText of the given turns = the text of their neighbours within $window
// turns in the same session (both sides), so a full-text hit can come from the surrounding talk.
// Called by the embedding pass for new turns and their $window predecessors.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WITH t, COLLECT {
  MATCH (n:Turn {sessionId: t.sessionId})
  WHERE n.index >= t.index - $window AND n.index <= t.index + $window AND n.index <> t.index
  RETURN left(n.userMessage, $maxChars) + ' ' + left(n.assistantMessage, $maxChars) ORDER BY n.index
} AS around
SET t.contextText = reduce(acc = '', s IN around | acc + s + '\n')
RETURN count(t) AS updated
