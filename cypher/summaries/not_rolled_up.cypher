// The session's latest $limit level-$level
// summaries no level-($level + 1) summary covers yet (returned newest first).
MATCH (m:Summary {sessionId: $sessionId, level: $level})
WHERE NOT EXISTS { MATCH (:Summary)-[:SUMMARIZES]->(m) }
WITH m ORDER BY m.timestamp DESC, m.toIndex DESC LIMIT $limit
RETURN m {.id, .sessionId, .level, .text, .charCount, .turnCount, .keyFindings, .filesMentioned, .toolsUsed,
          .topics, .timestamp, .method, .model, .fromIndex, .toIndex,
          childIds: COLLECT { MATCH (m)-[r:SUMMARIZES]->(c) WITH c, r ORDER BY r.order RETURN c.id }} AS summary
