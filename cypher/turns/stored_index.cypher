// Whether a turn (by its client-generated id) was stored: used to recover from a lost connection
// during store_turn's auto-commit transaction, whose outcome is then unknown.
MATCH (t:Turn {id: $turnId})
RETURN t.id AS id, t.index AS index
