// Tests: as create_quantized_fact_index, on servers with the SEARCH clause (scope filter in the index).
CYPHER 25 CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding WITH [f.scopeKey] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
