CREATE INDEX turn_timestamp IF NOT EXISTS FOR (t:Turn) ON (t.timestamp)
