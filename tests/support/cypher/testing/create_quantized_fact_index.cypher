// Tests: the fact vector index as schema step 0078 made it before 0089 (the server's default
// quantization), to check that apply_schema rebuilds it unquantized.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
