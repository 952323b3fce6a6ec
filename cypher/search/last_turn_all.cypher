// When the last turn of one scope (everything) was written: a time window the query names is read
// relative to it when the history ends before the window starts (an imported or long-idle memory).
MATCH (t:Turn)
WHERE t.timestamp IS NOT NULL
RETURN t.timestamp AS at
ORDER BY t.timestamp DESC
LIMIT 1
