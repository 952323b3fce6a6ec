// Benchmark loader: many live messages of one room in one UNWIND batch (with vectors: already embedded).
UNWIND $rows AS r
CREATE (m:LiveMessage {id: r.id, room: $room, author: r.author, text: r.text, at: r.at, embedState: 'done'})
WITH m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.vector)
RETURN count(*) AS loaded
