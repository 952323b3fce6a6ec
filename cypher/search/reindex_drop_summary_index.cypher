// graphmem reindex: drop the summary vector index (recreated by schema step 0024 with the new dimension).
DROP INDEX summary_embedding IF EXISTS
