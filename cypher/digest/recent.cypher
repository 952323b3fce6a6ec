// The latest digests (of one room, or every room when $room is null) with the facts each produced and
// the usage of the LLM call that read the messages.
MATCH (d:Digest) WHERE $room IS NULL OR d.room = $room
WITH d ORDER BY d.startedAt DESC LIMIT $limit
OPTIONAL MATCH (d)-[:PRODUCED]->(f:Fact)
WITH d, collect(f.content) AS facts
RETURN d {.id, .room, .state, .startedAt, .finishedAt, .messages, .done, .cleared, .model, .llmCalls, .promptTokens,
          .completionTokens, .costUsd} AS digest, facts
ORDER BY d.startedAt DESC
