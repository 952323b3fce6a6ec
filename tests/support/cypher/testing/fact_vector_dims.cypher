// Test helper: the vector length of each fact of the scopes starting with $prefix (0: none), and
// whether it is retired.
MATCH (f:Fact)
WHERE f.scopeKey STARTS WITH $prefix
RETURN f.content AS content, coalesce(size(f.embedding), 0) AS dims,
       coalesce(size(f.pendingEmbedding), 0) AS pending, f.supersededAt IS NOT NULL AS retired
ORDER BY content
