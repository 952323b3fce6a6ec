CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Turn|Summary) ON EACH [n.userMessage, n.assistantMessage, n.text] OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}}
