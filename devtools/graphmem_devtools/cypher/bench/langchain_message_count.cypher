// Benchmarks only: how many langchain-neo4j Message nodes hang off a chat session (checks the cleanup).
MATCH (s:LangchainChatSession {id: $sessionId})-[:LAST_MESSAGE]->(:Message)<-[:NEXT*0..]-(m:Message)
RETURN count(m) AS messages
