CREATE CONSTRAINT summary_cursor_key IF NOT EXISTS FOR (c:SummaryCursor) REQUIRE c.key IS UNIQUE
