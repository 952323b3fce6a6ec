CREATE INDEX fact_scope_importance IF NOT EXISTS FOR (f:Fact) ON (f.scopeKey, f.importance)
