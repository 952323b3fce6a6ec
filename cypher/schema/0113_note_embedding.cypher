CREATE VECTOR INDEX note_embedding IF NOT EXISTS FOR (n:Note) ON n.embedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
