// Exact vector search (brute-force cosine) over the turns and summaries of one scope (working directory):
// chosen instead of the vector indexes when the scope holds few nodes (exact, and faster there).
// A branch whose $turnK / $summaryK is 0 does not run.
// Turns are matched on ctxEmbedding (their vector averaged with the same-session neighbours', weight 0.3;
// graphmem.embedding), summaries on their own embedding.
// One row: `rows`, the candidates as maps {id, kind, cosine, chars (a turn's length)}, in no order
// (a list of maps is cheaper to read than one record per candidate), and how many of the scope's turns
// (when $turnK > 0) and summaries of $levels (when $summaryK > 0) wait for their embedding, unseen here.
CALL () {
  WITH 1 AS go WHERE $turnK > 0
  MATCH (t:Turn {cwd: $value})
  WHERE t.ctxEmbedding IS NOT NULL
  WITH t, vector.similarity.cosine(t.ctxEmbedding, $vector) AS score
  ORDER BY score DESC LIMIT $turnK
  RETURN t AS node, 'turn' AS kind, score
  UNION ALL
  WITH 1 AS go WHERE $summaryK > 0
  MATCH (m:Summary {cwd: $value})
  WHERE m.level IN $levels AND m.embedding IS NOT NULL
  WITH m, vector.similarity.cosine(m.embedding, $vector) AS score
  ORDER BY score DESC LIMIT $summaryK
  RETURN m AS node, 'summary' AS kind, score
}
WITH collect({id: node.id, kind: kind, cosine: score,
              chars: CASE WHEN kind = 'turn' THEN coalesce(node.chars, size(coalesce(node.userMessage, '')) + size(coalesce(node.assistantMessage, ''))) END}) AS rows
RETURN rows,
       COUNT { MATCH (t:Turn {embedState: 'pending'}) WHERE $turnK > 0 AND t.cwd = $value } AS pendingTurns,
       COUNT { MATCH (m:Summary {embedState: 'pending'}) WHERE $summaryK > 0 AND m.level IN $levels AND m.cwd = $value } AS pendingSummaries
