// After lock_cursor, in the same transaction: the cursor position and the session's level-$level
// summaries after it that no higher summary covers yet, in turn order.
MATCH (c:SummaryCursor {key: $key})
CALL (c) {
  MATCH (m:Summary {sessionId: c.sessionId, level: $level})
  WHERE m.fromIndex > c.through AND m.rollupState = 'pending'
  WITH m ORDER BY m.fromIndex LIMIT $limit
  RETURN collect({id: m.id, fromIndex: m.fromIndex, toIndex: m.toIndex, charCount: m.charCount, settled: true}) AS items
}
RETURN c.through AS through, items
