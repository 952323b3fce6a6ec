// The session and timestamp of fused candidates (turns and summaries by id), for the re-ranking that
// spreads the top k over sessions and lifts candidates inside a time window the query names. With
// $withText, also their text (a turn's request and reply, a summary's text; at most $textChars
// characters), to lift those that tell a time when the query asks when; else the text is null.
CALL () {
  UNWIND $turnIds AS id
  MATCH (t:Turn {id: id})
  RETURN t.id AS id, t.sessionId AS sessionId, t.timestamp AS timestamp,
         CASE WHEN $withText
           THEN left(coalesce(t.userMessage, '') + '\n' + coalesce(t.assistantMessage, ''), $textChars) END AS text
  UNION ALL
  UNWIND $summaryIds AS id
  MATCH (m:Summary {id: id})
  RETURN m.id AS id, m.sessionId AS sessionId, m.timestamp AS timestamp,
         CASE WHEN $withText THEN left(coalesce(m.text, ''), $textChars) END AS text
}
RETURN id, sessionId, timestamp, text
