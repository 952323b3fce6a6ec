// When the last turn of one scope (project (git root)) was written: a time window the query names is
// read relative to it when the history ends before the window starts (an imported or long-idle memory).
MATCH (t:Turn)
WHERE t.projectPath = $value
RETURN max(t.timestamp) AS at
