// A session's summaries (one level, or all when $level is null), by level then turn order.
MATCH (m:Summary {sessionId: $sessionId})
WHERE $level IS NULL OR m.level = $level
WITH m ORDER BY m.level, m.fromIndex, m.timestamp
RETURN m {.id, .sessionId, .level, .text, .charCount, .turnCount, .keyFindings, .filesMentioned, .toolsUsed,
          .topics, .timestamp, .method, .model, .fromIndex, .toIndex,
          childIds: COLLECT { MATCH (m)-[r:SUMMARIZES]->(c) WITH c, r ORDER BY r.order RETURN c.id }} AS summary
