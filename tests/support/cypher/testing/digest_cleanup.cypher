// Delete the digests and live messages of the rooms whose name starts with $prefix (a test's rooms).
CALL () {
  MATCH (d:Digest) WHERE d.room STARTS WITH $prefix
  DETACH DELETE d
  RETURN count(*) AS digests
}
CALL () {
  MATCH (m:LiveMessage) WHERE m.room STARTS WITH $prefix
  DETACH DELETE m
  RETURN count(*) AS messages
}
RETURN digests, messages
