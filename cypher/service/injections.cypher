// The memory service's injection log: the latest pre-call injections (newest first, optionally of
// one session) with the facts each one injected, in rank order, and their scores and reasons.
MATCH (r:Retrieval)
WHERE $sessionId IS NULL OR r.sessionId = $sessionId
WITH r ORDER BY r.at DESC LIMIT $limit
RETURN r {.id, .sessionId, .at, .turnIndex, .messagePreview, .itemCount, .chars, .estimatedTokens, .latencyMs, .candidates,
          .skippedSeen, .itemIds, .itemScores, .itemReasons} AS retrieval,
       COLLECT {
         MATCH (r)-[e:RETRIEVED]->(f:Fact)
         RETURN {rank: e.rank, id: f.id, content: left(f.content, 200), type: f.type, score: e.score, reason: e.reason}
         ORDER BY e.rank
       } AS items
