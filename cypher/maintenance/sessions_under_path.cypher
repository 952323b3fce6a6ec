// Ids of the sessions whose directory is the given path or lies below it (tests clean their own
// namespace with this; nothing ever wipes the whole database).
MATCH (s:Session)
WHERE s.cwd = $path OR s.cwd STARTS WITH $prefix
RETURN s.id AS id
