// graphmem reindex: replace the vectors of the facts in $rows ({id, embedding}; embedding null for a
// retired fact): the old model's vector and any pending one go, the new one is indexed.
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
REMOVE f.embedding, f.pendingEmbedding, f.vectorPendingSince
WITH f, r
CALL (f, r) {
  WITH f, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
}
RETURN count(f) AS updated
