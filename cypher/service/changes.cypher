// The memory service's change marker, polled for the dashboard's live updates: it changes when a
// fact is written or forgotten (counts from the count store, no scan), an injection is logged or a session gets a turn.
RETURN COUNT { MATCH (f:Fact) } AS factVersions,
       COUNT { MATCH (a:ForgetAudit) } AS forgets,
       toString(COLLECT { MATCH (r:Retrieval) WHERE r.at IS NOT NULL RETURN r.at ORDER BY r.at DESC LIMIT 1 }[0]) AS lastInjection,
       toString(COLLECT { MATCH (s:Session) WHERE s.lastActivityAt IS NOT NULL
                          RETURN s.lastActivityAt ORDER BY s.lastActivityAt DESC LIMIT 1 }[0]) AS lastActivity
