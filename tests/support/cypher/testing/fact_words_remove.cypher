// Test helper: make a fact look like one stored before remember() kept its normalised words.
MATCH (f:Fact {id: $id})
REMOVE f.words
