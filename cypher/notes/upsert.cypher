// Store new or changed notes of vault $vault; a note whose text changed waits for its embedding again.
UNWIND $rows AS r
MERGE (n:Note {key: r.key})
  ON CREATE SET n.createdAt = $now
WITH n, r, n.text = r.text AND n.embedState IS NOT NULL AS same
SET n.embedState = CASE WHEN same THEN n.embedState ELSE 'pending' END
SET n.vault = $vault, n.path = r.path, n.name = r.name, n.title = r.title, n.text = r.text, n.tags = r.tags,
    n.tagText = r.tagText, n.links = r.links, n.fixed = r.fixed, n.mtime = r.mtime, n.updatedAt = $now
RETURN count(n) AS stored
