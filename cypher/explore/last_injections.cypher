// What was injected into the last prompts: the 5 latest Retrieval logs (one per prompt that got
// facts injected before the model call) with the facts each one RETRIEVED, in rank order.
// A log keeps its item ids and scores even when a fact is forgotten later: itemCount can exceed
// the facts still linked.
// Parameters: $sessionId, one session's id, or null for the latest prompts of every session,
//   e.g.  :param sessionId => null
// Graph: (:Session)-[:HAS_RETRIEVAL]->(:Retrieval)-[:RETRIEVED]->(:Fact); table: one row per prompt.
MATCH (r:Retrieval)
WHERE $sessionId IS NULL OR r.sessionId = $sessionId
WITH r ORDER BY r.at DESC LIMIT 5
OPTIONAL MATCH log = (:Session)-[:HAS_RETRIEVAL]->(r)
RETURN log,
       COLLECT { MATCH injected = (r)-[e:RETRIEVED]->(:Fact) RETURN injected ORDER BY e.rank } AS injected,
       r.at AS at, r.sessionId AS sessionId, r.turnIndex AS turnIndex, left(r.messagePreview, 120) AS prompt,
       r.itemCount AS itemCount, r.chars AS chars,
       COLLECT {
         MATCH (r)-[e:RETRIEVED]->(f:Fact)
         RETURN toString(e.rank) + '. ' + left(f.content, 80) + ' (' + coalesce(e.reason, 'score ' + toString(round(e.score, 2))) + ')'
         ORDER BY e.rank
       } AS facts
ORDER BY at DESC
