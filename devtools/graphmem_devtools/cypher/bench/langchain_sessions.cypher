// Benchmarks only: whether a langchain-neo4j chat session node is still there (checks the cleanup).
MATCH (s:LangchainChatSession {id: $sessionId})
RETURN count(s) AS sessions
