CYPHER 25 CALL () {
  // Turns are matched on ctxEmbedding (their vector averaged with the same-session neighbours', weight 0.3;
  // graphmem.embedding), summaries on their own embedding.
  // Vector search over turns and summaries of one scope (everything) in one round trip, filtered inside
  // the indexes (Cypher 25 SEARCH clause, Neo4j 2026.01+). Index scores are (1 + cos) / 2; returned as cosine.
  // A branch whose $turnK / $summaryK is 0 does not run. Levels: the index filters the range, then IN $levels.
  // One row: `rows`, the candidates as maps {id, kind, cosine, chars (a turn's length)}, in no order
  // (a list of maps is cheaper to read than one record per candidate), and how many of the scope's turns
  // (when $turnK > 0) and summaries of $levels (when $summaryK > 0) wait for their embedding, unseen here.
  WITH 1 AS go WHERE $turnK > 0
  MATCH (t:Turn)
    SEARCH t IN (VECTOR INDEX turn_context_embedding FOR $vector LIMIT $turnK) SCORE AS score
  RETURN t AS node, 'turn' AS kind, score
  UNION ALL
  WITH 1 AS go WHERE $summaryK > 0
  MATCH (m:Summary)
    SEARCH m IN (VECTOR INDEX summary_embedding FOR $vector WHERE m.level >= $minLevel AND m.level <= $maxLevel LIMIT $summaryK) SCORE AS score
  RETURN m AS node, 'summary' AS kind, score
}
WITH node, kind, score WHERE kind = 'turn' OR node.level IN $levels
WITH collect({id: node.id, kind: kind, cosine: 2 * score - 1,
              chars: CASE WHEN kind = 'turn' THEN coalesce(node.chars, size(coalesce(node.userMessage, '')) + size(coalesce(node.assistantMessage, ''))) END}) AS rows
RETURN rows,
       COUNT { MATCH (t:Turn {embedState: 'pending'}) WHERE $turnK > 0 } AS pendingTurns,
       COUNT { MATCH (m:Summary {embedState: 'pending'}) WHERE $summaryK > 0 AND m.level IN $levels } AS pendingSummaries
