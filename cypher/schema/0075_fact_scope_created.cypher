CREATE INDEX fact_scope_created IF NOT EXISTS FOR (f:Fact) ON (f.scopeKey, f.createdAt)
