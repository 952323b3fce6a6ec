// Fault runs (devtools/graphmem_devtools/reliability/faults.py): how many of one session's turns and summaries still
// wait for an embedding.
MATCH (s:Session {id: $sessionId})
RETURN COUNT { MATCH (s)-[:HAS_TURN]->(t:Turn) WHERE t.embedState <> 'done' OR t.embedState IS NULL } AS turns,
       COUNT { MATCH (m:Summary {sessionId: s.id}) WHERE m.embedState <> 'done' OR m.embedState IS NULL } AS summaries
