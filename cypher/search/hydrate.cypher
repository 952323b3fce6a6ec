// The details of the final hits (turns and summaries by id), messages cut to $maxChars, with the
// tool names of turns and, when $withEmbedding, the stored vectors (for near-duplicate collapsing).
// One row: a list of maps is cheaper to read than one record per hit. A zoned time is read as its
// epoch second, nanosecond and zone (the driver's zoned DateTime costs more to read than the rest of
// a hit); a time stored as anything else comes back as it is, in `timestamp`.
CALL () {
  UNWIND $turnIds AS id
  MATCH (t:Turn {id: id})
  WITH t, t.timestamp IS :: ZONED DATETIME AS zoned
  RETURN 'turn' AS kind, t {
    .id, .sessionId, .cwd, .projectPath, .index, .charCount,
    at: CASE WHEN zoned THEN t.timestamp.epochSeconds END,
    nanos: CASE WHEN zoned THEN t.timestamp.nanosecond END,
    zone: CASE WHEN zoned THEN t.timestamp.timezone END,
    timestamp: CASE WHEN zoned THEN null ELSE t.timestamp END,
    userMessage: left(t.userMessage, $maxChars), assistantMessage: left(t.assistantMessage, $maxChars),
    userChars: size(t.userMessage), assistantChars: size(t.assistantMessage),
    tools: COLLECT { MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall) RETURN c.name ORDER BY r.order },
    embedding: CASE WHEN $withEmbedding THEN t.embedding END
  } AS item
  UNION ALL
  UNWIND $summaryIds AS id
  MATCH (m:Summary {id: id})
  WITH m, m.timestamp IS :: ZONED DATETIME AS zoned
  RETURN 'summary' AS kind, m {
    .id, .sessionId, .cwd, .projectPath, .level, .charCount, .turnCount, .method,
    .keyFindings, .filesMentioned, .toolsUsed, .topics,
    at: CASE WHEN zoned THEN m.timestamp.epochSeconds END,
    nanos: CASE WHEN zoned THEN m.timestamp.nanosecond END,
    zone: CASE WHEN zoned THEN m.timestamp.timezone END,
    timestamp: CASE WHEN zoned THEN null ELSE m.timestamp END,
    text: left(m.text, $maxChars), textChars: size(m.text),
    embedding: CASE WHEN $withEmbedding THEN m.embedding END
  } AS item
}
RETURN collect(item) AS items
