// Vector search over turns and summaries of one scope (project (git root)) in one round trip, for servers
// without in-index filtering (5.26): each index is over-fetched ($turnFetch / $summaryFetch nearest
// neighbours) and post-filtered to the scope; the caller widens the fetch when too few survive.
// Index scores are (1 + cos) / 2; returned as cosine. A branch whose $turnK / $summaryK is 0 does not run.
// Turns are matched on ctxEmbedding (their vector averaged with the same-session neighbours', weight 0.3;
// graphmem.embedding), summaries on their own embedding.
// One row: `rows`, the candidates as maps {id, kind, cosine, chars (a turn's length)}, in no order
// (a list of maps is cheaper to read than one record per candidate), and how many of the scope's turns
// (when $turnK > 0) and summaries of $levels (when $summaryK > 0) wait for their embedding, unseen here.
CALL () {
  WITH 1 AS go WHERE $turnK > 0
  CALL db.index.vector.queryNodes('turn_context_embedding', $turnFetch, $vector) YIELD node, score
  WITH node, score WHERE node.projectPath = $value
  RETURN node, 'turn' AS kind, score ORDER BY score DESC LIMIT $turnK
  UNION ALL
  WITH 1 AS go WHERE $summaryK > 0
  CALL db.index.vector.queryNodes('summary_embedding', $summaryFetch, $vector) YIELD node, score
  WITH node, score WHERE node.level IN $levels AND node.projectPath = $value
  RETURN node, 'summary' AS kind, score ORDER BY score DESC LIMIT $summaryK
}
WITH collect({id: node.id, kind: kind, cosine: 2 * score - 1,
              chars: CASE WHEN kind = 'turn' THEN coalesce(node.chars, size(coalesce(node.userMessage, '')) + size(coalesce(node.assistantMessage, ''))) END}) AS rows
RETURN rows,
       COUNT { MATCH (t:Turn {embedState: 'pending'}) WHERE $turnK > 0 AND t.projectPath = $value } AS pendingTurns,
       COUNT { MATCH (m:Summary {embedState: 'pending'}) WHERE $summaryK > 0 AND m.level IN $levels AND m.projectPath = $value } AS pendingSummaries
