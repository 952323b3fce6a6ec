// How many turns and summaries are embedded, pending or failed.
RETURN COUNT { MATCH (t:Turn {embedState: 'pending'}) } AS pendingTurns,
       COUNT { MATCH (t:Turn {embedState: 'done'}) } AS embeddedTurns,
       COUNT { MATCH (s:Summary {embedState: 'pending'}) } AS pendingSummaries,
       COUNT { MATCH (s:Summary {embedState: 'done'}) } AS embeddedSummaries
