// A chat room's live messages: what a chat agent has observed there (graphmem.chat.observe), newest
// first, with whether each is embedded yet (embedState pending / done).
// Parameters: $room, e.g.  :param room => 'lobby'
// Table: one row per message.
MATCH (m:LiveMessage {room: $room})
RETURN m.at AS at, m.author AS author, m.text AS text, m.embedState AS embedState
ORDER BY m.at DESC
LIMIT 200
