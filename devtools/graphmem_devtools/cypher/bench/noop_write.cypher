// The floor for a write: an empty write transaction round trip on the same driver.
RETURN 1 AS one
