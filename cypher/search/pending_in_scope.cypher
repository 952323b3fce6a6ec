// How many turns and summaries of one scope still wait for their embedding: the vector side of a
// search cannot see them, and the search says so. $kind is session, cwd, project or all; $value the
// session id or path (null for all); $levels the levels searched (0 = turns).
RETURN COUNT {
         MATCH (t:Turn {embedState: 'pending'})
         WHERE 0 IN $levels
           AND ($kind = 'all' OR ($kind = 'session' AND t.sessionId = $value)
                OR ($kind = 'cwd' AND t.cwd = $value) OR ($kind = 'project' AND t.projectPath = $value))
       } AS turns,
       COUNT {
         MATCH (m:Summary {embedState: 'pending'})
         WHERE m.level IN $levels
           AND ($kind = 'all' OR ($kind = 'session' AND m.sessionId = $value)
                OR ($kind = 'cwd' AND m.cwd = $value) OR ($kind = 'project' AND m.projectPath = $value))
       } AS summaries
