CREATE CONSTRAINT turn_session_index IF NOT EXISTS FOR (t:Turn) REQUIRE (t.sessionId, t.index) IS UNIQUE
