// Ids of the sessions to check: all, or those whose directory is $path or lies below it.
MATCH (s:Session)
WHERE $path IS NULL OR s.cwd = $path OR s.cwd STARTS WITH $prefix
RETURN s.id AS id
ORDER BY id
