// A new digest of one room takes the room's oldest live messages no digest has taken ($limit at most):
// each gets the digest's id, so no other digest takes it and only these are cleared when it finishes.
MATCH (m:LiveMessage {room: $room}) WHERE m.digestId IS NULL
WITH m ORDER BY m.at, m.id LIMIT $limit
WITH collect(m) AS taken
WHERE size(taken) > 0
CREATE (d:Digest {id: $id, room: $room, state: 'claimed', startedAt: $now, messages: size(taken), done: 0})
FOREACH (m IN taken | SET m.digestId = $id)
RETURN d {.id, .room, .state, .facts, .done, .startedAt, .messages} AS digest
