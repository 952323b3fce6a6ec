// graphmem reindex: drop the fact vector index (recreated by schema step 0078 with the new dimension).
DROP INDEX fact_embedding IF EXISTS
