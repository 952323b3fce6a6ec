// The facts (any version) whose id starts with $prefix, as listings show ids shortened: the
// current version of each, so a caller can forget by a unique prefix or list the candidates.
MATCH (f:Fact) WHERE f.id STARTS WITH $prefix
OPTIONAL MATCH (head:Fact)-[:SUPERSEDES*1..]->(f) WHERE head.supersededAt IS NULL
RETURN f.id AS id, coalesce(head.id, f.id) AS currentId, left(coalesce(head.content, f.content), 80) AS content
ORDER BY id
LIMIT $limit
