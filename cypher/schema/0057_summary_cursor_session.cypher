CREATE INDEX summary_cursor_session IF NOT EXISTS FOR (c:SummaryCursor) ON (c.sessionId)
