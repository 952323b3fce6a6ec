// The last message of each of some turns (its reply, or its request when it has no reply; at most the
// last $textChars characters) and the turn that follows it in its session (NEXT), for lifting the turn
// that answers a question a found turn asks. Only turns whose last message holds a question mark and
// that have a next turn are returned.
UNWIND $ids AS id
MATCH (t:Turn {id: id})-[:NEXT]->(n:Turn)
WITH t, n, CASE WHEN coalesce(t.assistantMessage, '') <> '' THEN t.assistantMessage
                ELSE coalesce(t.userMessage, '') END AS last
WHERE last CONTAINS '?'
RETURN t.id AS id, n.id AS next, right(last, $textChars) AS last
