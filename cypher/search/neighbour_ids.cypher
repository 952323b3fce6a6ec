// The ids of the given turns and of the turns up to $window before them in the same session (whose
// contextText changes when a turn arrives).
UNWIND $ids AS id
MATCH (t:Turn {id: id})
MATCH (n:Turn {sessionId: t.sessionId})
WHERE n.index >= t.index - $window AND n.index <= t.index
RETURN collect(DISTINCT n.id) AS ids
