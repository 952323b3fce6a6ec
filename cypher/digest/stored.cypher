// One fact of a digest stored: the digest produced it, and its next fact is $done.
MATCH (d:Digest {id: $id})
SET d.done = $done
WITH d
OPTIONAL MATCH (f:Fact {id: $factId})
FOREACH (x IN CASE WHEN f IS NULL THEN [] ELSE [f] END | MERGE (d)-[:PRODUCED]->(x))
RETURN d.done AS done
