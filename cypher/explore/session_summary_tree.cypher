// A session's summary tree: every Summary of the session (level 1 covers turns, level n+1 covers
// summaries of level n) with what it SUMMARIZES, highest level first. Empty until the summarizer
// worker has run for this session.
// Parameters: $sessionId, e.g.  :param sessionId => 'the-session-id'
// Graph: (:Session)-[:HAS_SUMMARY]->(:Summary)-[:SUMMARIZES]->(:Summary|:Turn);
// table: one row per summary with the indexes of the turns or the ids of the summaries it covers.
MATCH summary = (s:Session {id: $sessionId})-[:HAS_SUMMARY]->(m:Summary)
RETURN summary,
       COLLECT { MATCH covers = (m)-[:SUMMARIZES]->() RETURN covers } AS covers,
       m.level AS level, m.turnCount AS turnCount, left(m.text, 160) AS text,
       COLLECT { MATCH (m)-[:SUMMARIZES]->(t:Turn) RETURN t.index ORDER BY t.index } AS turnIndexes,
       COLLECT { MATCH (m)-[:SUMMARIZES]->(c:Summary) RETURN c.id ORDER BY c.timestamp } AS childSummaries
ORDER BY m.level DESC, m.timestamp
