// Export one session's summary forest for the checker: its turns, its summaries (with the levels of
// their HAS_SUMMARY relations), every SUMMARIZES edge out of them or into its turns and summaries,
// and its unfinished summary jobs.
MATCH (s:Session {id: $sessionId})
CALL (s) {
  MATCH (s)-[:HAS_TURN]->(t:Turn)
  RETURN collect(t {.id, .index, .charCount, .timestamp, .summaryState, .sessionId}) AS turns
}
CALL (s) {
  MATCH (m:Summary {sessionId: s.id})
  RETURN collect(m {.id, .level, .charCount, .turnCount, .timestamp, .fromIndex, .toIndex, .sessionId, .coverKey,
                    hasSummary: COLLECT { MATCH (x:Session)-[r:HAS_SUMMARY]->(m) RETURN {session: x.id, level: r.level} }
                   }) AS summaries
}
CALL (s) {
  MATCH (p:Summary {sessionId: s.id})-[r:SUMMARIZES]->(c)
  RETURN collect({parent: p.id, child: c.id, childId: r.childId, turn: c:Turn}) AS outgoing
}
CALL (s) {
  CALL (s) {
    MATCH (s)-[:HAS_TURN]->(c:Turn)<-[r:SUMMARIZES]-(p:Summary)
    WHERE p.sessionId <> s.id
    RETURN p, r, c
    UNION ALL
    MATCH (c:Summary {sessionId: s.id})<-[r:SUMMARIZES]-(p:Summary)
    WHERE p.sessionId <> s.id
    RETURN p, r, c
  }
  RETURN collect({parent: p.id, child: c.id, childId: r.childId, turn: c:Turn, parentSession: p.sessionId}) AS incoming
}
CALL (s) {
  MATCH (j:SummaryJob {sessionId: s.id})
  RETURN collect(j {.id, .level, .state, .childIds, .lastError, .owner}) AS jobs
}
RETURN s.id AS sessionId, turns, summaries, outgoing, incoming, jobs
