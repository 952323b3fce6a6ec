// The raw vectors of the embedded turns around the given ones: per session, every embedded turn whose index
// lies within 2 * $window of the given turns' index range (the given turns' neighbours and theirs), with
// its length (user message + assistant reply, in characters: long turns keep their own vector).
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WITH t.sessionId AS sid, min(t.index) AS lo, max(t.index) AS hi
MATCH (n:Turn {sessionId: sid})
WHERE n.index >= lo - 2 * $window AND n.index <= hi + 2 * $window AND n.embedding IS NOT NULL
RETURN sid AS sessionId, n.id AS id, n.index AS index, n.embedding AS embedding,
       coalesce(n.chars, size(coalesce(n.userMessage, '')) + size(coalesce(n.assistantMessage, ''))) AS chars
