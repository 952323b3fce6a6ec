CREATE CONSTRAINT summary_cover_key IF NOT EXISTS FOR (s:Summary) REQUIRE s.coverKey IS UNIQUE
