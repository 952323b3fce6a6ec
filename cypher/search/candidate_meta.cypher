// The session and timestamp of fused candidates (turns and summaries by id), for the re-ranking that
// spreads the top k over sessions and lifts candidates inside a time window the query names.
CALL () {
  UNWIND $turnIds AS id
  MATCH (t:Turn {id: id})
  RETURN t.id AS id, t.sessionId AS sessionId, t.timestamp AS timestamp
  UNION ALL
  UNWIND $summaryIds AS id
  MATCH (m:Summary {id: id})
  RETURN m.id AS id, m.sessionId AS sessionId, m.timestamp AS timestamp
}
RETURN id, sessionId, timestamp
