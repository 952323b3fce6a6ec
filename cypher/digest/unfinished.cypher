// The oldest digest of one room that did not finish (claimed its messages, maybe extracted its facts).
MATCH (d:Digest {room: $room}) WHERE d.state <> 'done'
RETURN d {.id, .room, .state, .facts, .done, .startedAt, .messages} AS digest
ORDER BY d.startedAt LIMIT 1
