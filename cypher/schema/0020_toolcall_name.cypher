CREATE INDEX toolcall_name IF NOT EXISTS FOR (c:ToolCall) ON (c.name)
