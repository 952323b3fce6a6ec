// Seed 004 getLevel1SummariesNotSummarized for the context block: the session's latest level-1 summaries
// no higher summary covers yet (as summaries/not_rolled_up), newest first, with scope properties,
// text cut to $maxChars and (when $withEmbedding) vectors for de-duplication.
MATCH (m:Summary {sessionId: $sessionId, level: 1})
WHERE NOT EXISTS { MATCH (:Summary)-[:SUMMARIZES]->(m) }
WITH m ORDER BY m.timestamp DESC, m.toIndex DESC LIMIT $limit
RETURN m {
  .id, .sessionId, .cwd, .projectPath, .level, .timestamp, .charCount, .turnCount, .method,
  .keyFindings, .filesMentioned, .toolsUsed, .topics,
  text: left(m.text, $maxChars), textChars: size(m.text),
  embedding: CASE WHEN $withEmbedding THEN m.embedding END
} AS item
