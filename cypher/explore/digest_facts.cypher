// What each digest of a chat room produced: how many live messages it read and the facts it stored from
// them, latest digest first. A digest reads a room's live messages, extracts durable facts with an LLM,
// stores them like any remembered fact and clears the messages it read.
// Parameters: $room, e.g.  :param room => 'lobby'
// Table: one row per digest.
MATCH (d:Digest {room: $room})
OPTIONAL MATCH (d)-[:PRODUCED]->(f:Fact)
WITH d, collect(f.content) AS facts
RETURN d.state AS state, d.startedAt AS started, d.finishedAt AS finished, d.messages AS messagesRead, facts
ORDER BY d.startedAt DESC
LIMIT 50
