// Delete the conversation nodes filed under one path (a hostile run's namespace); their sessions go with the namespace.
MATCH (c:Conversation)
WHERE c.key STARTS WITH $prefix
DETACH DELETE c
RETURN count(*) AS deleted
