// Where the digest stands, for one room or ($room null) every room: the last finished digest, the live
// messages waiting for one, the digests that did not finish.
CALL () {
  OPTIONAL MATCH (d:Digest {state: 'done'}) WHERE $room IS NULL OR d.room = $room
  RETURN max(d.finishedAt) AS last, count(d) AS digests
}
CALL () {
  OPTIONAL MATCH (m:LiveMessage) WHERE m.digestId IS NULL AND ($room IS NULL OR m.room = $room)
  RETURN count(m) AS waiting
}
CALL () {
  OPTIONAL MATCH (d:Digest) WHERE d.state <> 'done' AND ($room IS NULL OR d.room = $room)
  RETURN count(d) AS unfinished
}
RETURN last, digests, waiting, unfinished
