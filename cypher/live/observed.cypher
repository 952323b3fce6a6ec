// Whether the live message $id was stored (observe asks after a lost connection, before it writes again).
MATCH (m:LiveMessage {id: $id})
RETURN m.id AS id
