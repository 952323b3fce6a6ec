// Tests and diagnostics: the embedding model and vector sizes (raw and neighbour-averaged) of every turn and
// summary.
MATCH (n) WHERE n:Turn OR n:Summary
RETURN CASE WHEN n:Turn THEN 'turn' ELSE 'summary' END AS kind, n.embeddingModel AS model,
       size(coalesce(n.embedding, [])) AS dims, size(coalesce(n.ctxEmbedding, [])) AS ctx
