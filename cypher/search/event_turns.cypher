// The turns a full-text search of an event clause ranked best ("before I moved": "I moved"), with
// their text and the time span of their session, to pick the turn that tells the event and bound a
// query's time window by the session it was told in.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
CALL (t) {
  MATCH (o:Turn {sessionId: t.sessionId})
  RETURN min(o.timestamp) AS sessionStart, max(o.timestamp) AS sessionEnd
}
RETURN t.id AS id, coalesce(t.userMessage, '') + ' ' + coalesce(t.assistantMessage, '') AS text,
       sessionStart, sessionEnd
