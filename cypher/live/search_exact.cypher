// Exact (brute-force) cosine over the embedded live messages of the rooms $rooms: used when they hold few
// messages (always complete, and sees a vector the moment it is committed). vector.similarity.cosine
// returns (1 + cos) / 2: converted to cosine here.
MATCH (m:LiveMessage)
WHERE m.room IN $rooms AND m.embedding IS NOT NULL
WITH m, 2 * vector.similarity.cosine(m.embedding, $vector) - 1 AS cosine
ORDER BY cosine DESC
LIMIT $limit
RETURN m {.id, .room, .author, .text, .at} AS message, cosine
