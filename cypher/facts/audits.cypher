// The latest forget audit records, newest first.
MATCH (a:ForgetAudit)
RETURN a {.*} AS audit
ORDER BY a.at DESC
LIMIT $limit
