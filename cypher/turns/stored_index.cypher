// Whether a turn (by its client-generated id) was stored, in turns/append's shape: used to recover
// from a lost connection during store_turn's auto-commit transaction, whose outcome is then unknown.
MATCH (t:Turn {id: $turnId})
RETURN 1 AS created, t.index AS lastIndex
