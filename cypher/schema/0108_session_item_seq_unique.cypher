CREATE CONSTRAINT session_item_seq IF NOT EXISTS FOR (i:SessionItem) REQUIRE (i.sessionId, i.seq) IS UNIQUE
