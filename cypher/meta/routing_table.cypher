CALL dbms.routing.getRoutingTable({}, $database) YIELD ttl, servers
RETURN ttl, servers
