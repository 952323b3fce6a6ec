CREATE CONSTRAINT live_message_id_unique IF NOT EXISTS FOR (m:LiveMessage) REQUIRE m.id IS UNIQUE
