// How many turns and summaries one scope (working directory) holds: decides exact scan vs. vector index
// and how far to over-fetch (index-backed counts).
RETURN COUNT { MATCH (t:Turn) WHERE t.cwd = $value } AS turns,
       COUNT { MATCH (m:Summary) WHERE m.cwd = $value } AS summaries
