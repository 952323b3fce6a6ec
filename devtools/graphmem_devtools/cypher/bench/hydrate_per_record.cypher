// The previous read of search hits, kept to time against search/hydrate: one record per hit, times
// as zoned DateTimes (turns and summaries by id, messages cut to $maxChars).
CALL () {
  UNWIND $turnIds AS id
  MATCH (t:Turn {id: id})
  RETURN 'turn' AS kind, t {
    .id, .sessionId, .cwd, .projectPath, .index, .timestamp, .charCount,
    userMessage: left(t.userMessage, $maxChars), assistantMessage: left(t.assistantMessage, $maxChars),
    userChars: size(t.userMessage), assistantChars: size(t.assistantMessage),
    tools: COLLECT { MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall) RETURN c.name ORDER BY r.order },
    embedding: CASE WHEN $withEmbedding THEN t.embedding END
  } AS item
  UNION ALL
  UNWIND $summaryIds AS id
  MATCH (m:Summary {id: id})
  RETURN 'summary' AS kind, m {
    .id, .sessionId, .cwd, .projectPath, .level, .timestamp, .charCount, .turnCount, .method,
    .keyFindings, .filesMentioned, .toolsUsed, .topics,
    text: left(m.text, $maxChars), textChars: size(m.text),
    embedding: CASE WHEN $withEmbedding THEN m.embedding END
  } AS item
}
RETURN kind, item
