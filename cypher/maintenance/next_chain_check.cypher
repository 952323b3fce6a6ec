// Shape of a session's NEXT chain: a linear chain has turns - 1 NEXT relations, one head and no
// turn with two successors or predecessors.
MATCH (t:Turn {sessionId: $sessionId})
WITH collect(t) AS turns
RETURN size(turns) AS turns,
       size([t IN turns WHERE EXISTS { (t)-[:NEXT]->(:Turn) } | t]) AS nexts,
       size([t IN turns WHERE NOT EXISTS { (:Turn)-[:NEXT]->(t) } | t]) AS heads,
       size([t IN turns WHERE COUNT { (t)-[:NEXT]->() } > 1 OR COUNT { ()-[:NEXT]->(t) } > 1 | t]) AS branching
