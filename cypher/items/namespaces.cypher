// The distinct namespaces that hold at least one item of a store.
MATCH (i:Item {store: $store})
RETURN DISTINCT i.namespace AS namespace
