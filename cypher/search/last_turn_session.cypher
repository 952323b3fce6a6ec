// When the last turn of one scope (Session id) was written: a time window the query names is read
// relative to it when the history ends before the window starts (an imported or long-idle memory).
MATCH (t:Turn {sessionId: $value})
RETURN max(t.timestamp) AS at
