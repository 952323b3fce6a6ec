// reindex: the note vector index goes with the old model's dimension (0113 creates it again).
DROP INDEX note_embedding IF EXISTS
