// The pre-call injection's candidates, in one round trip and without the message's vector (so it
// runs while the message is embedded): the turn the message will become, the facts this session
// was given within the last $dedupTurns turns (with their embeddings, for the meaning check; every
// embedding is left out (null) for the ids in $knownIds, whose vectors the caller already holds),
// and the identity, important and recent facts of the scopes the session may see (global, its
// project, itself). Its vector top k is facts/inject_vector.
MATCH (sess:Session {id: $sessionId})
WITH sess, coalesce(sess.turnCount, 0) + 1 AS turnIndex,
     ['global', 'project:' + sess.projectPath, 'session:' + sess.id] AS scopeKeys
CALL (sess, turnIndex) {
  OPTIONAL MATCH (sess)-[i:INJECTED]->(f:Fact)
    WHERE i.turnIndex > turnIndex - $dedupTurns
  RETURN collect(f {.id, embedding: CASE WHEN f.id IN $knownIds THEN null ELSE coalesce(f.embedding, f.pendingEmbedding) END}) AS injected
}
CALL (scopeKeys) {
  OPTIONAL MATCH (f:Fact)
    WHERE f.scopeKey IN scopeKeys AND f.type = 'identity' AND f.supersededAt IS NULL
      AND coalesce(f.expiresAt > datetime(), true)
  WITH f ORDER BY f.importance DESC, f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], embedding: CASE WHEN f.id IN $knownIds THEN null ELSE coalesce(f.embedding, f.pendingEmbedding) END}) AS identity
}
CALL (scopeKeys) {
  OPTIONAL MATCH (f:Fact)
    WHERE f.scopeKey IN scopeKeys AND f.importance >= $importantMin AND f.type <> 'identity'
      AND f.supersededAt IS NULL AND coalesce(f.expiresAt > datetime(), true)
  WITH f ORDER BY f.importance DESC, f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], embedding: CASE WHEN f.id IN $knownIds THEN null ELSE coalesce(f.embedding, f.pendingEmbedding) END}) AS important
}
CALL (scopeKeys) {
  // per scope, newest first from the (scopeKey, createdAt) index, so each stops after $limit
  // current facts instead of sorting every fact of the window (a busy project's hundreds)
  UNWIND scopeKeys AS key
  CALL (key) {
    MATCH (f:Fact)
      WHERE f.scopeKey = key AND f.createdAt >= $since AND f.supersededAt IS NULL
        AND coalesce(f.expiresAt > datetime(), true)
    WITH f ORDER BY f.createdAt DESC LIMIT $limit
    RETURN f
  }
  WITH f ORDER BY f.createdAt DESC LIMIT $limit
  RETURN collect(f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name], embedding: CASE WHEN f.id IN $knownIds THEN null ELSE coalesce(f.embedding, f.pendingEmbedding) END}) AS recent
}
RETURN turnIndex, scopeKeys, injected, identity, important, recent
