// Tests only: the turns of a session lose their joined text, as a store embedded before the joined
// documents existed.
MATCH (t:Turn {sessionId: $sessionId})
REMOVE t.turnText, t.shortTurnText
RETURN count(t) AS updated
