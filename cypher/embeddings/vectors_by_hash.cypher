// Already computed vectors for content hashes (the database-level embedding cache).
UNWIND $hashes AS h
CALL (h) {
  OPTIONAL MATCH (t:Turn {embeddingHash: h}) WHERE t.embeddingModel = $model AND t.embedding IS NOT NULL
  WITH t LIMIT 1
  OPTIONAL MATCH (s:Summary {embeddingHash: h}) WHERE t IS NULL AND s.embeddingModel = $model AND s.embedding IS NOT NULL
  WITH t, s LIMIT 1
  RETURN coalesce(t.embedding, s.embedding) AS embedding
}
WITH h, embedding WHERE embedding IS NOT NULL
RETURN h AS hash, embedding
