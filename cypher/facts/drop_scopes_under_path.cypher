// Remove the scope nodes and forget audits of projects at or under a path once their facts are gone.
OPTIONAL MATCH (s:FactScope)
  WHERE s.key = 'project:' + $path OR s.key STARTS WITH 'project:' + $prefix
DETACH DELETE s
WITH count(*) AS ignored
OPTIONAL MATCH (a:ForgetAudit)
  WHERE any(k IN a.scopeKeys WHERE k = 'project:' + $path OR k STARTS WITH 'project:' + $prefix)
DETACH DELETE a
RETURN count(*) AS done
