CREATE VECTOR INDEX turn_context_embedding IF NOT EXISTS FOR (t:Turn) ON t.ctxEmbedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
