// Observed rooms with their number of live messages and the time of the latest.
MATCH (m:LiveMessage)
RETURN m.room AS room, count(m) AS messages, max(m.at) AS latest
ORDER BY latest DESC
LIMIT $limit
