// Items of one store by namespace and key; row.pos says which request each answers.
UNWIND $rows AS row
MATCH (i:Item {store: $store, nsKey: row.nsKey, key: row.key})
RETURN row.pos AS pos, i.namespace AS namespace, i.key AS key, i.value AS value,
       i.createdAt AS createdAt, i.updatedAt AS updatedAt
