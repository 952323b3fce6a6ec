// Test support only: remove the SUMMARIZES edge of a child to break an invariant on purpose.
MATCH (:Summary)-[r:SUMMARIZES {childId: $childId}]->()
DELETE r
RETURN count(*) AS removed
