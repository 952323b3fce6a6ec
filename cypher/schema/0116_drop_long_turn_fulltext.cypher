DROP INDEX long_turn_search IF EXISTS
