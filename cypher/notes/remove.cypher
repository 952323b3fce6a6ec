// Remove the notes of vault $vault that left it (deleted, renamed, or no longer tagged).
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
DETACH DELETE n
RETURN count(*) AS removed
