// How many of these client-generated turn ids are stored, in turns/append's shape: asked after an
// import batch's commit reply was lost (the batch is one transaction: all of it landed, or none).
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WITH count(t) AS created
WHERE created > 0
RETURN created
