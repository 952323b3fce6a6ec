// One page of the items under a namespace prefix, most recently updated first.
MATCH (i:Item {store: $store})
WHERE i.namespace[0..size($prefix)] = $prefix
RETURN i.namespace AS namespace, i.key AS key, i.value AS value, i.createdAt AS createdAt, i.updatedAt AS updatedAt
ORDER BY i.updatedAt DESC, i.nsKey, i.key
SKIP $offset LIMIT $limit
