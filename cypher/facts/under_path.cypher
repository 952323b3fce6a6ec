// Ids of the current facts of projects at or under a path (maintenance and test clean-up).
MATCH (f:Fact)
WHERE (f.scopeKey = 'project:' + $path OR f.scopeKey STARTS WITH 'project:' + $prefix) AND f.supersededAt IS NULL
RETURN f.id AS id
