// graphmem reindex: drop the turn vector index (recreated by schema step 0023 with the new dimension).
DROP INDEX turn_embedding IF EXISTS
