// After lock_cursor, in the same transaction: the cursor position and the session's turns after
// it still waiting for a level-1 summary, in order; settled = older than $waitSeconds.
MATCH (c:SummaryCursor {key: $key})
CALL (c) {
  MATCH (t:Turn {sessionId: c.sessionId})
  WHERE t.index > c.through AND t.summaryState = 'pending'
  WITH t ORDER BY t.index LIMIT $limit
  RETURN collect({
    id: t.id, fromIndex: t.index, toIndex: t.index, charCount: t.charCount,
    settled: t.timestamp <= datetime() - duration({milliseconds: $waitMs})
  }) AS items
}
RETURN c.through AS through, items
