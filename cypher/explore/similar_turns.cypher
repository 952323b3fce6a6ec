// Turns similar to a given turn, by the vector index on Turn.embedding (turn_embedding), across all
// sessions, with the session each one belongs to. Empty while the turn has no embedding yet (the
// worker embeds pending turns).
// Parameters: $turnId, e.g.  :param turnId => 'the-turn-id'  (turn ids are in session_turns' graph)
// Graph: the turn and its 10 nearest turns with their sessions; table: cosine similarity, best first.
MATCH (t:Turn {id: $turnId})
WHERE t.embedding IS NOT NULL
CALL db.index.vector.queryNodes('turn_embedding', 11, t.embedding) YIELD node, score
WITH t, node, score
WHERE node <> t
MATCH similar = (s:Session)-[:HAS_TURN]->(node)
RETURN t AS turn, similar, 2 * score - 1 AS cosine, node.id AS similarTurnId, s.id AS sessionId,
       node.index AS index, left(node.userMessage, 120) AS userMessage
ORDER BY cosine DESC
LIMIT 10
