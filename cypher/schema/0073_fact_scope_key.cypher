CREATE INDEX fact_scope_key IF NOT EXISTS FOR (f:Fact) ON (f.scopeKey)
