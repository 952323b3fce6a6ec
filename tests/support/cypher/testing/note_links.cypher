// The LINKS_TO relations between the notes of a vault, as (from path, to path) pairs.
MATCH (a:Note {vault: $vault})-[:LINKS_TO]->(b:Note)
RETURN a.path AS source, b.path AS target
ORDER BY source, target
