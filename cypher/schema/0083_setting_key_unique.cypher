CREATE CONSTRAINT setting_key_unique IF NOT EXISTS FOR (s:GraphMemSetting) REQUIRE s.key IS UNIQUE
