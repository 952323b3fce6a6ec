// What build_context reads about its session, in one round trip: the session, its last
// $recentLimit turns (newest first, with their tool calls and, for the repeat check, their vectors;
// as turns/recent) and its latest $level1Limit level-1 summaries no higher summary covers yet
// (as context/level1_unrolled, text cut to $maxChars, no vectors). No row: unknown session.
MATCH (s:Session {id: $sessionId})
CALL (s) {
  OPTIONAL MATCH (t:Turn {sessionId: s.id})
    WHERE t.index > s.turnCount - $recentLimit
  WITH t ORDER BY t.index DESC
  RETURN collect(t {.id, .sessionId, .index, .userMessage, .assistantMessage, .timestamp, .charCount, .sourceId,
    .embedding,
    toolCalls: COLLECT {
      MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall)
      RETURN c {.id, .name, .args, .result, .success, .durationMs, .timestamp, .sourceId, order: r.order}
      ORDER BY r.order
    }}) AS recent
}
CALL (s) {
  OPTIONAL MATCH (m:Summary {sessionId: s.id, level: 1})
    WHERE NOT EXISTS { MATCH (:Summary)-[:SUMMARIZES]->(m) }
  WITH m ORDER BY m.timestamp DESC, m.toIndex DESC LIMIT $level1Limit
  RETURN collect(m {
    .id, .sessionId, .cwd, .projectPath, .level, .timestamp, .charCount, .turnCount, .method,
    .keyFindings, .filesMentioned, .toolsUsed, .topics,
    text: left(m.text, $maxChars), textChars: size(m.text)
  }) AS level1
}
RETURN s {.id, .cwd, .projectPath, .agent, .title, .startedAt, .lastActivityAt, .turnCount} AS session, recent, level1
