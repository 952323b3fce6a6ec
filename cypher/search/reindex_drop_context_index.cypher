// graphmem reindex: drop the turn context-vector index (recreated by schema step 0041 with the new dimension).
DROP INDEX turn_context_embedding IF EXISTS
