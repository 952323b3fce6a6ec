// A digest is done: its facts are stored and its messages cleared.
MATCH (d:Digest {id: $id})
SET d.state = 'done', d.finishedAt = $now, d.cleared = $cleared
RETURN d.id AS id
