// The rooms a digest has work in: live messages not yet taken by a digest, or a digest that did not finish.
CALL () {
  MATCH (m:LiveMessage) WHERE m.digestId IS NULL
  RETURN DISTINCT m.room AS room
  UNION
  MATCH (d:Digest) WHERE d.state <> 'done'
  RETURN DISTINCT d.room AS room
}
RETURN room ORDER BY room LIMIT $limit
