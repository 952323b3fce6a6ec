// Tool calls stored before files were recorded get their (:File) and TOUCHED relationship, as the
// write path (turns/append) makes them: the path argument of the read/edit/write/search tools of
// Claude Code and Gemini CLI, resolved against the turn's directory and kept relative to its
// project root when it lies inside. Shell commands and patches are not parsed here. Calls that
// already touch a file are left alone, so running this again adds nothing.
MATCH (t:Turn)-[:HAS_TOOL_CALL]->(c:ToolCall)
WHERE c.name IN ['Read', 'NotebookRead', 'Edit', 'MultiEdit', 'NotebookEdit', 'Write', 'Grep', 'Glob', 'LS',
                 'read_file', 'write_file', 'replace', 'edit', 'glob', 'grep', 'search_file_content',
                 'grep_search', 'list_directory']
  AND t.projectPath IS NOT NULL AND t.cwd IS NOT NULL AND c.args STARTS WITH '{'
  AND NOT EXISTS { (c)-[:TOUCHED]->() }
WITH t, c,
     {Read: 'read', NotebookRead: 'read', Edit: 'edit', MultiEdit: 'edit', NotebookEdit: 'edit', Write: 'write',
      Grep: 'search', Glob: 'search', LS: 'search', read_file: 'read', write_file: 'write', replace: 'edit',
      edit: 'edit', glob: 'search', grep: 'search', search_file_content: 'search', grep_search: 'search',
      list_directory: 'search'}[c.name] AS action,
     [k IN ['file_path', 'notebook_path', 'absolute_path', 'path', 'dir_path']
      WHERE c.args CONTAINS '"' + k + '": "'][0] AS key
WHERE key IS NOT NULL
WITH t, c, action, split(split(c.args, '"' + key + '": "')[1], '"')[0] AS raw
WITH t, c, action, CASE WHEN raw STARTS WITH './' THEN substring(raw, 2) ELSE raw END AS raw
WHERE NOT raw IN ['', '.', '/', '..'] AND NOT raw STARTS WITH '../' AND NOT raw STARTS WITH '~'
  AND NOT raw CONTAINS '*' AND NOT raw CONTAINS '?' AND NOT raw CONTAINS '://' AND NOT raw ENDS WITH '/'
WITH t, c, action,
     CASE WHEN raw STARTS WITH '/' THEN raw WHEN t.cwd ENDS WITH '/' THEN t.cwd + raw ELSE t.cwd + '/' + raw END AS full
WITH t, c, action,
     CASE WHEN t.projectPath <> '/' AND full STARTS WITH t.projectPath + '/'
          THEN substring(full, size(t.projectPath) + 1) ELSE full END AS path
MERGE (f:File {project: t.projectPath, path: path})
CREATE (c)-[:TOUCHED {action: action}]->(f)
