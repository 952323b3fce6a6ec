SHOW DATABASES YIELD name, currentStatus, home, role
RETURN name, currentStatus, home, role
