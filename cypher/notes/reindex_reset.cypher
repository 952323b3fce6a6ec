// reindex: every note waits for an embedding again (the worker embeds them with the new model).
MATCH (n:Note) WHERE n.embedState <> 'pending' OR n.embedding IS NOT NULL
SET n.embedState = 'pending'
REMOVE n.embedding
RETURN count(n) AS reset
