// Take the write lock of jobs (ids sorted by the caller, so lockers never deadlock); later
// statements of the same transaction then read their committed state.
UNWIND $ids AS id
MATCH (j:SummaryJob {id: id})
SET j.lockedAt = datetime()
RETURN count(j) AS locked
