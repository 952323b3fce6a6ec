// Raw characters of the session's turns not yet covered by a
// level-1 summary.
MATCH (s:Session {id: $sessionId})-[:HAS_TURN]->(t:Turn)
WHERE NOT EXISTS { MATCH (:Summary {level: 1})-[:SUMMARIZES]->(t) }
RETURN s.id AS id, sum(t.charCount) AS chars
