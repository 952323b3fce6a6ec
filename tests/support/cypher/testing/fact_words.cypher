// Test helper: a fact's stored normalised words (null for a fact stored before they were kept).
MATCH (f:Fact {id: $id})
RETURN f.words AS words
