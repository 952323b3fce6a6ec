// Delete the notes of one test's vault.
MATCH (n:Note {vault: $vault})
DETACH DELETE n
RETURN count(*) AS deleted
