// The fact vector index without quantization (exact float32 HNSW: on 100k 512-d facts a k=20
// search took ~2.6 ms of server CPU against ~5.6 with the default BINARY quantization, and its
// scores are exact cosines, which the dedup and injection thresholds compare). Step 0078 creates it
// so on a new database; on an older one apply_schema first drops the quantized index, and this
// step (as 0078) builds it again from the stored vectors.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}
