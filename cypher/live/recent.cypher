// The latest live messages of one room, newest first (explore: what the agent has observed there).
MATCH (m:LiveMessage {room: $room})
RETURN m {.id, .room, .author, .text, .at, .embedState} AS message
ORDER BY m.at DESC
LIMIT $limit
