// Rebuild the [[wiki links]] of vault $vault as LINKS_TO relations between its notes (a link to a note
// that is not in memory links nothing).
MATCH (n:Note {vault: $vault})
OPTIONAL MATCH (n)-[old:LINKS_TO]->()
DELETE old
WITH DISTINCT n
UNWIND coalesce(n.links, []) AS target
MATCH (m:Note {vault: $vault, name: target})
WHERE m <> n
MERGE (n)-[:LINKS_TO]->(m)
RETURN count(*) AS links
