// The notes in memory (of vault $vault, every vault when null; only the fixed ones when $fixedOnly):
// fixed notes first, then the latest updated.
MATCH (n:Note)
WHERE ($vault IS NULL OR n.vault = $vault) AND (NOT $fixedOnly OR n.fixed)
RETURN n {.key, .vault, .path, .title, .tags, .fixed, .embedState, text: left(n.text, $maxChars), updatedAt: toString(n.updatedAt),
          links: COUNT { (n)-[:LINKS_TO]->() }} AS note
ORDER BY n.fixed DESC, n.updatedAt DESC, n.path
LIMIT $limit
