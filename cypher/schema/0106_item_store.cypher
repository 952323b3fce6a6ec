CREATE INDEX item_store IF NOT EXISTS FOR (i:Item) ON (i.store)
