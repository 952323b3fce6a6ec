// Queue overview: jobs by state and level, the active workers, turns and summaries waiting.
CALL () {
  MATCH (j:SummaryJob)
  WITH j.state AS state, j.level AS level, count(*) AS n,
       sum(CASE WHEN j.state = 'running' AND j.leaseUntil < datetime() THEN 1 ELSE 0 END) AS expired
  ORDER BY state, level
  RETURN collect({state: state, level: level, count: n, expired: expired}) AS jobs
}
CALL () {
  MATCH (j:SummaryJob {state: 'running'})
  WHERE j.leaseUntil >= datetime()
  WITH j.owner AS owner, count(*) AS n, max(j.claimedAt) AS since
  ORDER BY owner
  RETURN collect({owner: owner, jobs: n, lastClaim: since}) AS workers
}
RETURN jobs, workers,
       COUNT { MATCH (t:Turn {summaryState: 'pending'}) } AS pendingTurns,
       COUNT { MATCH (t:Turn {embedState: 'pending'}) } AS unembeddedTurns,
       COUNT { MATCH (m:Summary {embedState: 'pending'}) } AS unembeddedSummaries,
       COUNT { MATCH (m:Summary) } AS summaries
