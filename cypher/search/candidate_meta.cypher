// The session and time (epoch milliseconds) of fused candidates (turns and summaries by id), for the
// re-ranking that spreads the top k over sessions and lifts candidates inside a time window the query
// names. With $withText, also their text (a turn's request and reply, a summary's text; at most
// $textChars characters), to lift those that tell a time when the query asks when; else the text is
// null. One row: times as numbers and one list keep the reply cheap to read (100 candidates); a time
// stored as anything but a zoned datetime reads as null (no time).
CALL () {
  UNWIND $turnIds AS id
  MATCH (t:Turn {id: id})
  RETURN t.id AS id, t.sessionId AS sessionId,
         CASE WHEN t.timestamp IS :: ZONED DATETIME THEN t.timestamp.epochMillis END AS at,
         CASE WHEN $withText
           THEN left(coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, ''), $textChars) END AS text
  UNION ALL
  UNWIND $summaryIds AS id
  MATCH (m:Summary {id: id})
  RETURN m.id AS id, m.sessionId AS sessionId,
         CASE WHEN m.timestamp IS :: ZONED DATETIME THEN m.timestamp.epochMillis END AS at,
         CASE WHEN $withText THEN left(coalesce(m.text, ''), $textChars) END AS text
}
RETURN collect({id: id, sessionId: sessionId, at: at, text: text}) AS candidates
