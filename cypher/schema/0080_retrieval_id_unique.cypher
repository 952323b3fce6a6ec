CREATE CONSTRAINT retrieval_id_unique IF NOT EXISTS FOR (r:Retrieval) REQUIRE r.id IS UNIQUE
