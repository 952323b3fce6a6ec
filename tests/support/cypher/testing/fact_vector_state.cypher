// Test helper: where a fact's vector is (in the index, still pending, or gone with a superseded fact).
MATCH (f:Fact {id: $id})
RETURN f.embedding IS NOT NULL AS indexed, f.pendingEmbedding IS NOT NULL AS pending,
       f.vectorPendingSince IS NOT NULL AS pendingSince, f.supersededAt IS NOT NULL AS superseded
