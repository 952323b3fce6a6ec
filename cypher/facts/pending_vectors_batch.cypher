// Ids of up to $limit facts whose vector has waited for the index since before $before (their
// process stopped before its background writer indexed them): the worker's periodic cleanup
// indexes them with facts/index_vectors.
MATCH (f:Fact)
  WHERE f.vectorPendingSince < $before
RETURN f.id AS id
LIMIT $limit
