// The notes matching the full-text query $query (title, text, tags) of vault $vault (all when null).
CALL db.index.fulltext.queryNodes('note_text', $query, {limit: $fetch}) YIELD node, score
WITH node, score WHERE $vault IS NULL OR node.vault = $vault
RETURN node {.key, .vault, .path, .title, .tags, .fixed, text: left(node.text, $maxChars), updatedAt: toString(node.updatedAt)} AS note,
       score
ORDER BY score DESC
LIMIT $limit
