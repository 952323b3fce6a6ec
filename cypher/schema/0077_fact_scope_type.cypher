CREATE INDEX fact_scope_type IF NOT EXISTS FOR (f:Fact) ON (f.scopeKey, f.type)
