CREATE INDEX fact_vector_pending IF NOT EXISTS FOR (f:Fact) ON (f.vectorPendingSince)
