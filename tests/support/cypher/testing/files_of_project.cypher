// Tests only: the files of the projects under a path, with how each tool call touched them.
MATCH (f:File)
WHERE f.project = $path OR f.project STARTS WITH $path + '/'
OPTIONAL MATCH (c:ToolCall)-[r:TOUCHED]->(f)
RETURN f.project AS project, f.path AS path, collect({tool: c.name, action: r.action, success: c.success}) AS calls
ORDER BY project, path
