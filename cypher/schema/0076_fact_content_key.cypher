CREATE INDEX fact_content_key IF NOT EXISTS FOR (f:Fact) ON (f.scopeKey, f.contentKey)
