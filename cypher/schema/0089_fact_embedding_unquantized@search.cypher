// The fact vector index without quantization, filtering on the scope inside the index (Cypher 25):
// see 0089_fact_embedding_unquantized.cypher.
CYPHER 25 CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding WITH [f.scopeKey] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}
