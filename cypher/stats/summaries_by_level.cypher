// graphmem stats: summaries per level of the hierarchy.
MATCH (m:Summary)
RETURN m.level AS level, count(m) AS count
ORDER BY level
