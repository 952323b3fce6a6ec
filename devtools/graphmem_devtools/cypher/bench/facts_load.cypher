// Benchmark loader: many facts of one scope in one UNWIND batch (with vectors and a subject each).
MERGE (s:FactScope {key: $scopeKey})
  ON CREATE SET s.kind = 'project', s.count = 0, s.createdAt = datetime()
SET s.count = s.count + size($rows)
WITH s
UNWIND $rows AS r
CREATE (f:Fact {id: r.id, content: r.content, contentKey: r.id, words: r.words, type: r.type, importance: 0.5,
                createdAt: datetime() - duration('P1D'), updatedAt: datetime(), accessCount: 0,
                source: 'bench', scope: 'project', scopeKey: $scopeKey, version: 1})
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.vector)
MERGE (x:Subject {name: r.subjects[0]})
CREATE (f)-[:ABOUT]->(x)
RETURN count(*) AS loaded
