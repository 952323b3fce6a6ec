// The session directories under a benchmark namespace $prefix (one per haystack).
MATCH (s:Session) WHERE s.cwd STARTS WITH $prefix
RETURN DISTINCT s.cwd AS cwd ORDER BY cwd
