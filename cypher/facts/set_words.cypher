// Facts stored before remember() kept their normalised words (graphmem.facts.model.words), given them
// when remember() meets them: its statement can then decide on them alone (facts/remember).
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
SET f.words = r.words
