// Graph candidates of one scope (everything): the turns and summaries the best hits of the vector and
// full-text sides reach through the graph. $turnSeeds / $summarySeeds: [{id, score}] (score: the
// seed's score scaled to 0..1 within its list). Edges followed, each weighted by $weights:
//   next    -- the turns just before and after a turn seed in its session (NEXT); with $longTurnChars > 0
//              only between turns no longer than that (a long turn is retrieved on its own words);
//   covers  -- what a summary seed covers, down to the turns (SUMMARIZES, up to three levels);
//   file    -- turns whose tool calls touched a file a turn seed's tool calls touched (TOUCHED);
//   subject -- turns facts about a subject of the seed's facts were extracted from (EXTRACTED_FROM, ABOUT);
//   fact    -- the turns a fact seed was extracted from (EXTRACTED_FROM): $factSeeds are the facts
//              nearest to the query (search/fact_seeds).
// At most $perSeed candidates per seed and edge, the most recent first (a file or a subject touched
// by thousands of turns stays cheap). A candidate's score is the sum over the seeds that reach it
// of seed score x edge weight; a seed is a candidate only when another seed reaches it.
// One row: `rows`, the candidates as maps {id, kind, score}, best first; and `askers`: of the turns
// $askerIds, those that have a next turn (NEXT) and whose last message (the reply, or the request of a
// turn without one) holds a question mark, as {id, next: the next turn's id, last: that message's last
// $textChars characters} -- what the answer lift reads (search/answer_turns reads the same alone), read
// here so that a hybrid search pays no round trip of its own for it.
CALL () {
  UNWIND $askerIds AS id
  MATCH (t:Turn {id: id})-[:NEXT]->(n:Turn)
  WITH t, n, CASE WHEN coalesce(t.assistantMessage, '') <> '' THEN t.assistantMessage
                  ELSE coalesce(t.userMessage, '') END AS last
  WHERE last CONTAINS '?'
  RETURN collect({id: t.id, next: n.id, last: right(last, $textChars)}) AS askers
}
CALL () {
  CALL () {
    UNWIND $turnSeeds AS seed
    MATCH (s:Turn {id: seed.id})
    CALL (s, seed) {
      CALL (s) {
        MATCH (s)-[:NEXT]-(c:Turn)
        WHERE $longTurnChars <= 0
           OR (coalesce(s.chars, size(coalesce(s.userMessage, '')) + size(coalesce(s.assistantMessage, ''))) <= $longTurnChars
               AND coalesce(c.chars, size(coalesce(c.userMessage, '')) + size(coalesce(c.assistantMessage, ''))) <= $longTurnChars)
        RETURN c, 'next' AS edge
        UNION
        MATCH (s)-[:HAS_TOOL_CALL]->(:ToolCall)-[:TOUCHED]->(:File)<-[:TOUCHED]-(:ToolCall)<-[:HAS_TOOL_CALL]-(c:Turn)
        WHERE c <> s
        WITH DISTINCT c ORDER BY c.timestamp DESC LIMIT $perSeed
        RETURN c, 'file' AS edge
        UNION
        MATCH (s)<-[:EXTRACTED_FROM]-(:Fact)-[:ABOUT]->(:Subject)<-[:ABOUT]-(:Fact)-[:EXTRACTED_FROM]->(c:Turn)
        WHERE c <> s
        WITH DISTINCT c ORDER BY c.timestamp DESC LIMIT $perSeed
        RETURN c, 'subject' AS edge
      }
      RETURN c, seed.score * $weights[edge] AS gain
    }
    RETURN c, gain
    UNION ALL
    UNWIND $summarySeeds AS seed
    MATCH (s:Summary {id: seed.id})
    CALL (s) {
      MATCH (s)-[:SUMMARIZES*1..3]->(c)
      WHERE ((c:Turn AND $includeTurns) OR (c:Summary AND c.level IN $levels))
      WITH DISTINCT c ORDER BY c.timestamp DESC LIMIT $perSeed
      RETURN c
    }
    RETURN c, seed.score * $weights.covers AS gain
    UNION ALL
    UNWIND $factSeeds AS seed
    MATCH (:Fact {id: seed.id})-[:EXTRACTED_FROM]->(c:Turn)
    WHERE $includeTurns
    RETURN c, seed.score * $weights.fact AS gain
  }
  WITH c, sum(gain) AS score
  WHERE score > 0
    AND ((c:Turn AND $includeTurns) OR (c:Summary AND c.level IN $levels))
  WITH c.id AS id, CASE WHEN c:Turn THEN 'turn' ELSE 'summary' END AS kind, score
  ORDER BY score DESC, id
  LIMIT $limit
  RETURN collect({id: id, kind: kind, score: score}) AS rows
}
RETURN rows, askers
