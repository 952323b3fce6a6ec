// How many facts the given scopes hold (approximate: kept on the FactScope nodes).
OPTIONAL MATCH (s:FactScope) WHERE s.key IN $scopeKeys
RETURN coalesce(sum(s.count), 0) AS count
