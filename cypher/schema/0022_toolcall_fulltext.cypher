CREATE FULLTEXT INDEX toolcall_text IF NOT EXISTS FOR (c:ToolCall) ON EACH [c.name, c.args, c.result] OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}}
