CREATE CONSTRAINT conversation_key_unique IF NOT EXISTS FOR (c:Conversation) REQUIRE c.key IS UNIQUE
