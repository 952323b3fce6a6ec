CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (t:Turn) ON t.embedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
