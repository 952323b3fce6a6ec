// How many turns and summaries one scope (project (git root)) holds: decides exact scan vs. vector index
// and how far to over-fetch (index-backed counts).
RETURN COUNT { MATCH (t:Turn) WHERE t.projectPath = $value } AS turns,
       COUNT { MATCH (m:Summary) WHERE m.projectPath = $value } AS summaries
