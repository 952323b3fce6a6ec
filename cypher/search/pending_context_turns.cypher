// Turns whose contextText is not computed yet (document expansion), up to $limit.
MATCH (t:Turn) WHERE t.contextText IS NULL
RETURN t.id AS id LIMIT $limit
