// Every item under a namespace prefix with its cosine to the query vector (exact; null for an item
// stored without a vector), best first.
MATCH (i:Item {store: $store})
WHERE i.namespace[0..size($prefix)] = $prefix
WITH i, CASE WHEN i.embedding IS NULL OR size(i.embedding) <> size($vector) THEN null
             ELSE vector.similarity.cosine(i.embedding, $vector) END AS similarity
RETURN i.namespace AS namespace, i.key AS key, i.value AS value, i.createdAt AS createdAt, i.updatedAt AS updatedAt,
       CASE WHEN similarity IS NULL THEN null ELSE 2.0 * similarity - 1.0 END AS score
ORDER BY similarity IS NULL, similarity DESC, i.updatedAt DESC, i.nsKey, i.key
