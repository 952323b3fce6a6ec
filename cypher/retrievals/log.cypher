// Log one pre-call injection: a Retrieval node under the session with the items (ids, scores,
// reasons: kept even if the facts are later forgotten), RETRIEVED edges to the facts, the
// session's injection state (INJECTED {at, turnIndex}, one edge per fact, moved forward) and the
// facts' access counters. estimatedTokens: the characters added / 4 (the usual figure for English
// text with OpenAI's tokenizers; graphmem.stats.CHARS_PER_TOKEN).
MATCH (sess:Session {id: $sessionId})
CREATE (r:Retrieval {id: $id, sessionId: $sessionId, at: $now, turnIndex: $turnIndex, messagePreview: $preview,
                     itemIds: [i IN $items | i.id], itemScores: [i IN $items | i.score],
                     itemReasons: [i IN $items | i.reason], itemCount: size($items), chars: $chars,
                     estimatedTokens: $chars / 4,
                     latencyMs: $latencyMs, candidates: $candidates, skippedSeen: $skippedSeen, query: $query})
CREATE (sess)-[:HAS_RETRIEVAL]->(r)
WITH sess, r
CALL (sess, r) {
  UNWIND range(0, size($items) - 1) AS n
  WITH n, $items[n] AS item
  MATCH (f:Fact {id: item.id})
  CREATE (r)-[:RETRIEVED {rank: n + 1, score: item.score, reason: item.reason}]->(f)
  MERGE (sess)-[i:INJECTED]->(f)
  SET i.at = $now, i.turnIndex = $turnIndex,
      f.accessCount = coalesce(f.accessCount, 0) + 1, f.lastAccessedAt = $now
}
RETURN r.id AS id
