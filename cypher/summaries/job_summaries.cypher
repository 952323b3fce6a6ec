// The child summaries of a roll-up job, in order.
UNWIND range(0, size($ids) - 1) AS i
MATCH (m:Summary {id: $ids[i]})
RETURN m.id AS id, m.text AS text, m.keyFindings AS keyFindings, m.filesMentioned AS filesMentioned,
       m.toolsUsed AS toolsUsed, m.topics AS topics
ORDER BY i
