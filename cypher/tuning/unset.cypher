OPTIONAL MATCH (s:GraphMemSetting {key: $key})
DELETE s
RETURN count(s) AS removed
