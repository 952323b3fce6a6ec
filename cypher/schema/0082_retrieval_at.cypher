CREATE INDEX retrieval_at IF NOT EXISTS FOR (r:Retrieval) ON (r.at)
