// Delete items of one store by namespace and key (absent ones are no error).
UNWIND $rows AS row
MATCH (i:Item {store: $store, nsKey: row.nsKey, key: row.key})
DETACH DELETE i
