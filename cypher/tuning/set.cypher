MERGE (s:GraphMemSetting {key: $key})
SET s.value = $value, s.updatedAt = datetime()
RETURN s.key AS key, s.value AS value
