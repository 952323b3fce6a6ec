CREATE VECTOR INDEX live_message_embedding IF NOT EXISTS FOR (m:LiveMessage) ON m.embedding OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
