// Ids of up to $limit current facts whose expiry has passed (the periodic cleanup deletes them).
MATCH (f:Fact)
WHERE f.expiresAt <= datetime() AND f.supersededAt IS NULL
RETURN f.id AS id
LIMIT $limit
