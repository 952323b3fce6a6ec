// Create or replace items of one store: the value (JSON text), the text it is searched by and its vector
// (null: not searchable by meaning). createdAt is kept on a replace.
UNWIND $rows AS row
MERGE (i:Item {store: $store, nsKey: row.nsKey, key: row.key})
  ON CREATE SET i.createdAt = $now
SET i.namespace = row.namespace,
    i.value = row.value,
    i.text = row.text,
    i.embedding = row.embedding,
    i.updatedAt = $now
