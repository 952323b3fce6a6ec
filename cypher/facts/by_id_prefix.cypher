// The facts (any version) whose id starts with $prefix, as listings show ids shortened, of the
// scopes $scopeKeys (null: every scope): with the current version of each, so that a caller can
// forget by a unique prefix or list the candidates.
MATCH (f:Fact) WHERE f.id STARTS WITH $prefix
OPTIONAL MATCH (head:Fact)-[:SUPERSEDES*1..]->(f) WHERE head.supersededAt IS NULL
WITH f, head
WHERE $scopeKeys IS NULL OR coalesce(head.scopeKey, f.scopeKey) IN $scopeKeys
RETURN f.id AS id, coalesce(head.id, f.id) AS currentId, left(coalesce(head.content, f.content), 80) AS content
ORDER BY id
LIMIT $limit
