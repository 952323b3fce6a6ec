// One injection log with the facts it injected (those not forgotten since).
MATCH (r:Retrieval {id: $id})
RETURN r {.*} AS retrieval,
       [(r)-[e:RETRIEVED]->(f:Fact) | {rank: e.rank, id: f.id, content: f.content, type: f.type, score: e.score,
                                       reason: e.reason}] AS items
