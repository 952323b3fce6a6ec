// Tests only: a store from before files were recorded: the TOUCHED links and File nodes of the
// projects under a path are removed.
MATCH (f:File)
WHERE f.project = $path OR f.project STARTS WITH $path + '/'
DETACH DELETE f
RETURN count(*) AS removed
