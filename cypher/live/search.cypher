// The live messages nearest to $vector among the rooms $rooms (all rooms when null). The vector index is
// over-fetched ($fetch nearest neighbours) and post-filtered to the rooms; index scores are (1 + cos) / 2,
// returned as cosine.
CALL db.index.vector.queryNodes('live_message_embedding', $fetch, $vector) YIELD node, score
WITH node, score WHERE $rooms IS NULL OR node.room IN $rooms
RETURN node {.id, .room, .author, .text, .at} AS message, 2 * score - 1 AS cosine
ORDER BY cosine DESC
LIMIT $limit
