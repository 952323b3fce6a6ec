// graphmem stats: how much the store holds and how much work is pending (label counts use the count store).
RETURN COUNT { MATCH (d:Directory) } AS directories,
       COUNT { MATCH (s:Session) } AS sessions,
       COUNT { MATCH (t:Turn) } AS turns,
       COUNT { MATCH (c:ToolCall) } AS toolCalls,
       COUNT { MATCH (m:Summary) } AS summaries,
       COUNT { MATCH (t:Turn {embedState: 'pending'}) } AS pendingTurnEmbeddings,
       COUNT { MATCH (m:Summary {embedState: 'pending'}) } AS pendingSummaryEmbeddings,
       COUNT { MATCH (t:Turn {summaryState: 'pending'}) } AS pendingTurnSummaries,
       COUNT { MATCH (j:SummaryJob) } AS summaryJobs,
       COUNT { MATCH (f:Fact) WHERE f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true) } AS facts,
       COUNT { MATCH (f:Fact) } AS factVersions
