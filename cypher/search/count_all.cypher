// How many turns and summaries one scope (everything) holds: decides exact scan vs. vector index
// and how far to over-fetch (index-backed counts).
RETURN COUNT { MATCH (t:Turn) } AS turns, COUNT { MATCH (m:Summary) } AS summaries
