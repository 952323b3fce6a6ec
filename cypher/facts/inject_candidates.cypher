// Everything the pre-call injection needs except the vector hits, in one round trip: the turn the
// message will become, the facts this session was given within the last $dedupTurns turns (with
// their embeddings, for the meaning check), and the identity, important and recent facts of the
// scopes the session may see (global, its project, itself), plus how many facts those scopes hold.
MATCH (sess:Session {id: $sessionId})
WITH sess, coalesce(sess.turnCount, 0) + 1 AS turnIndex,
     ['global', 'project:' + sess.projectPath, 'session:' + sess.id] AS scopeKeys
CALL (sess, turnIndex) {
  OPTIONAL MATCH (sess)-[i:INJECTED]->(f:Fact)
    WHERE i.turnIndex > turnIndex - $dedupTurns
  RETURN collect(f {.id, .embedding}) AS injected
}
CALL (scopeKeys) {
  OPTIONAL MATCH (f:Fact)
    WHERE f.scopeKey IN scopeKeys AND f.type = 'identity' AND f.supersededAt IS NULL
      AND (f.expiresAt IS NULL OR f.expiresAt > datetime())
  WITH f ORDER BY f.importance DESC, f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, .createdAt, .updatedAt, .expiresAt, .accessCount, .lastAccessedAt, .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], .embedding}) AS identity
}
CALL (scopeKeys) {
  OPTIONAL MATCH (f:Fact)
    WHERE f.scopeKey IN scopeKeys AND f.importance >= $importantMin AND f.type <> 'identity'
      AND f.supersededAt IS NULL AND (f.expiresAt IS NULL OR f.expiresAt > datetime())
  WITH f ORDER BY f.importance DESC, f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, .createdAt, .updatedAt, .expiresAt, .accessCount, .lastAccessedAt, .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], .embedding}) AS important
}
CALL (scopeKeys) {
  OPTIONAL MATCH (f:Fact)
    WHERE f.scopeKey IN scopeKeys AND f.createdAt >= $since AND f.supersededAt IS NULL
      AND (f.expiresAt IS NULL OR f.expiresAt > datetime())
  WITH f ORDER BY f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, .createdAt, .updatedAt, .expiresAt, .accessCount, .lastAccessedAt, .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], .embedding}) AS recent
}
CALL (scopeKeys) {
  OPTIONAL MATCH (sc:FactScope) WHERE sc.key IN scopeKeys
  RETURN coalesce(sum(sc.count), 0) AS scopeCount
}
RETURN turnIndex, scopeKeys, injected, identity, important, recent, scopeCount
