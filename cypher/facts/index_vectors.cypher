// Put the pending vectors of the facts $ids into the vector index: remember() commits a fact with
// its vector in `pendingEmbedding` (not indexed: adding a vector to the HNSW index costs ~6 ms of the
// commit) and this runs shortly after, on the background writer, for the facts of a burst at once
// (DeferredWrites.submit_grouped: a vector index costs much per commit). A fact superseded meanwhile only
// loses its pending vector (retired facts stay out of the index).
UNWIND $ids AS id
MATCH (f:Fact {id: id})
  WHERE f.pendingEmbedding IS NOT NULL
CALL (f) {
  WITH f WHERE f.supersededAt IS NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', f.pendingEmbedding)
}
REMOVE f.pendingEmbedding, f.vectorPendingSince
RETURN count(f) AS indexed
