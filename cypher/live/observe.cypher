// One message of an observed room, stored as it is; the embedding pass embeds it later (embedState pending).
CREATE (m:LiveMessage {id: $id, room: $room, author: $author, text: $text, at: $at, embedState: 'pending'})
RETURN m.id AS id
