// The notes nearest to $vector (of vault $vault, every vault when null); index scores are (1 + cos) / 2,
// returned as cosine.
CALL db.index.vector.queryNodes('note_embedding', $fetch, $vector) YIELD node, score
WITH node, score WHERE $vault IS NULL OR node.vault = $vault
RETURN node {.key, .vault, .path, .title, .tags, .fixed, text: left(node.text, $maxChars), updatedAt: toString(node.updatedAt)} AS note,
       2 * score - 1 AS score
ORDER BY score DESC
LIMIT $limit
