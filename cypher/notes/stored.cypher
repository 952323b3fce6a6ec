// The notes of vault $vault in the graph, with the modification time each was synced at.
MATCH (n:Note {vault: $vault})
RETURN n.path AS path, n.mtime AS mtime
