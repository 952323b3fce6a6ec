// Every version a forget of $ids removes: for each id (any version), its current version and the
// whole SUPERSEDES history below it, newest first (the same set the delete statement removes).
MATCH (g:Fact) WHERE g.id IN $ids
MATCH (head:Fact)-[:SUPERSEDES*0..]->(g) WHERE head.supersededAt IS NULL
WITH DISTINCT head
MATCH (head)-[:SUPERSEDES*0..]->(v:Fact)
RETURN v.id AS id, head.id AS currentId, v.content AS content, v.supersededAt IS NULL AS current,
       toString(v.createdAt) AS createdAt
ORDER BY currentId, v.createdAt DESC
