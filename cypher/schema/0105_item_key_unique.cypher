CREATE CONSTRAINT item_store_namespace_key IF NOT EXISTS FOR (i:Item) REQUIRE (i.store, i.nsKey, i.key) IS UNIQUE
