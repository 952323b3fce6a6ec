CREATE INDEX fact_expires_at IF NOT EXISTS FOR (f:Fact) ON (f.expiresAt)
