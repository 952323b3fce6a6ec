// The turns of a level-1 job, in order, with their tool calls (long texts capped at $maxChars).
UNWIND range(0, size($ids) - 1) AS i
MATCH (t:Turn {id: $ids[i]})
RETURN t.id AS id, t.index AS index,
       left(t.userMessage, $maxChars) AS userMessage,
       left(t.assistantMessage, $maxChars) AS assistantMessage,
       COLLECT {
         MATCH (t)-[r:HAS_TOOL_CALL]->(c:ToolCall)
         WITH c, r ORDER BY r.order
         RETURN {name: c.name, args: left(c.args, $maxToolChars), result: left(c.result, $maxToolChars), success: c.success}
       } AS toolCalls
ORDER BY i
