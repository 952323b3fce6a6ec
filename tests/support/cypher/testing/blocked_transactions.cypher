// The transactions waiting for a lock whose current query contains $marker.
SHOW TRANSACTIONS YIELD transactionId, status, currentQuery
WHERE status STARTS WITH 'Blocked' AND currentQuery CONTAINS $marker
RETURN transactionId, status
