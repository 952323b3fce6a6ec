// The zone each turn of session $sessionId was stored with, in order (a name or an offset).
MATCH (t:Turn {sessionId: $sessionId})
RETURN t.index AS index, t.timestamp.timezone AS zone
ORDER BY t.index
