SHOW FUNCTIONS YIELD name
WHERE name IN $names
RETURN collect(name) AS names
