// When the last turn of one scope (working directory) was written: a time window the query names is
// read relative to it when the history ends before the window starts (an imported or long-idle memory).
MATCH (t:Turn)
WHERE t.cwd = $value
RETURN max(t.timestamp) AS at
