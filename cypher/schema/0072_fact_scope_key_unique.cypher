CREATE CONSTRAINT fact_scope_key_unique IF NOT EXISTS FOR (s:FactScope) REQUIRE s.key IS UNIQUE
