// Every stored setting (unset keys take their defaults in code).
MATCH (s:GraphMemSetting)
RETURN s.key AS key, s.value AS value
