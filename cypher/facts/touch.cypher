// Count a use of these facts (search results, injections): accessCount + 1, lastAccessedAt.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
SET f.accessCount = coalesce(f.accessCount, 0) + 1, f.lastAccessedAt = $now
RETURN count(f) AS touched
