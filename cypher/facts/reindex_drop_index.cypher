// Drop the fact vector index: graphmem reindex (recreated by schema step 0078 with the new dimension)
// and apply_schema when the index is a quantized one from before schema 0089 (recreated unquantized).
DROP INDEX fact_embedding IF EXISTS
