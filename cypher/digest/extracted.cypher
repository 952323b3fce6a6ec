// A digest's extracted facts (JSON), kept before any is stored, so a digest resumed after a crash stores
// the same facts rather than asking the model again.
MATCH (d:Digest {id: $id})
SET d.state = 'extracted', d.facts = $facts, d.extractedAt = $now
RETURN d.id AS id
