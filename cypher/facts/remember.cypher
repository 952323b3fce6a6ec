// remember(), in one statement (facts/remember@search.cypher is the same for Neo4j 2026.01+). Lock the
// scope's (:FactScope) node (serialises remembers of one scope, so the check and the write cannot
// race; it also keeps the scope's approximate fact count), find a current fact with exactly the same
// normalised text, else the current facts nearest to $vector with cosine >= $minCosine (best first,
// at most $k): small scopes (count <= $exactMax) are scanned exactly; larger ones use the vector
// index, over-fetching $fetch nearest facts of every scope and keeping this scope's (no in-index
// filtering before Neo4j 2026.01), plus a scan of this scope's facts whose vectors still wait for the
// index (`pendingEmbedding`, see below). `complete` is false when that over-fetch may have missed a
// fact above $minCosine. Index scores are (1 + cos) / 2. Then decide and write (see below).
// replan=skip: the server keeps this statement's plan. The statistics of the pending-vector index
// flip between empty and not around every remember, and each flip would otherwise make the server
// plan this statement again on its next call (a costly plan); the plan does not depend on size.
CYPHER replan=skip
MERGE (s:FactScope {key: $scopeKey})
  ON CREATE SET s.kind = $scopeKind, s.count = 0, s.createdAt = datetime()
SET s.lockedAt = datetime()
WITH s
OPTIONAL MATCH (e:Fact {scopeKey: $scopeKey, contentKey: $contentKey})
  WHERE e.supersededAt IS NULL AND coalesce(e.expiresAt > datetime(), true)
WITH s, e LIMIT 1
CALL (s, e) {
  CALL (s, e) {
    // the scan's key is null unless the scope is small: a plain WHERE guard here was planned after
    // the index seek, which then read every fact of a large scope before discarding them all
    WITH CASE WHEN e IS NULL AND $vector IS NOT NULL AND s.count <= $exactMax THEN $scopeKey END AS scanKey
    MATCH (f:Fact {scopeKey: scanKey})
      WHERE f.supersededAt IS NULL AND coalesce(f.embedding, f.pendingEmbedding) IS NOT NULL
    WITH f, 2 * vector.similarity.cosine(coalesce(f.embedding, f.pendingEmbedding), $vector) - 1 AS cosine
    WHERE cosine >= $minCosine
    RETURN f, cosine, true AS exact
    UNION ALL
    // a large scope's facts whose vectors are not in the index yet (remembered moments ago), scanned
    // before the index is searched: a fact indexed in between is then found by one or the other
    WITH s, e WHERE e IS NULL AND $vector IS NOT NULL AND s.count > $exactMax
    MATCH (f:Fact) USING INDEX f:Fact(vectorPendingSince)
      WHERE f.vectorPendingSince IS NOT NULL AND f.scopeKey = $scopeKey AND f.supersededAt IS NULL
    WITH f, 2 * vector.similarity.cosine(f.pendingEmbedding, $vector) - 1 AS cosine
    WHERE cosine >= $minCosine
    RETURN f, cosine, false AS exact
    UNION ALL
    WITH s, e WHERE e IS NULL AND $vector IS NOT NULL AND s.count > $exactMax
    CALL db.index.vector.queryNodes('fact_embedding', $fetch, $vector) YIELD node AS f, score
    RETURN f, 2 * score - 1 AS cosine, false AS exact
  }
  WITH f, cosine, exact ORDER BY cosine DESC
  WITH count(f) AS fetched, min(cosine) AS lowestCosine, coalesce(max(CASE WHEN exact THEN 1 ELSE 0 END), 1) = 1 AS exact,
       collect(CASE WHEN f.scopeKey = $scopeKey AND f.supersededAt IS NULL AND cosine >= $minCosine
                     AND coalesce(f.expiresAt > datetime(), true)
                THEN f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt), expiresAt: toString(f.expiresAt), .accessCount,
                        lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(f)-[:ABOUT]->(x:Subject) | x.name],
                        .words, cosine: cosine} END) AS found
  RETURN found[0..$k] AS hits, exact OR fetched < $fetch OR lowestCosine < $minCosine AS complete
}
// remember()'s rules, on the first hit that any rule takes (hits are best first): `contained` (the new
// text has 3+ words, all in the stored fact: unchanged), `similar` (cosine >= $dedup: update),
// `refines` (the stored fact has 3+ words, all in the new text: update). `same` is the same normalised
// text (unchanged); `insert` when no hit is taken. The rule is null, and nothing is written, when the
// index search may have missed a fact (`complete` false, fewer than $k hits: the caller runs this
// again with a larger $fetch, or a larger $exactMax for the exact scan) or the hit predates the stored
// `words` (the caller gives the hits their words, facts/set_words, and runs this again).
WITH s, e, hits, complete,
     [h IN hits WHERE h.words IS NULL OR h.cosine >= $dedup
        OR (size($words) >= 3 AND all(w IN $words WHERE w IN h.words))
        OR (size(h.words) >= 3 AND all(w IN h.words WHERE w IN $words))][0] AS m
WITH s, e, hits, complete, m,
     CASE
       WHEN e IS NOT NULL THEN 'same'
       WHEN $vector IS NOT NULL AND NOT complete AND size(hits) < $k THEN null
       WHEN m IS NULL THEN 'insert'
       WHEN m.words IS NULL THEN null
       WHEN size($words) >= 3 AND all(w IN $words WHERE w IN m.words) THEN 'contained'
       WHEN m.cosine >= $dedup THEN 'similar'
       ELSE 'refines'
     END AS rule
WITH s, e, hits, complete, m, rule,
     CASE WHEN e IS NOT NULL THEN e.id ELSE m.id END AS matchedId
// insert, or update: a new current fact supersedes the matched one, which keeps its text as history
// behind SUPERSEDES, loses its vector (so it leaves the vector index) and hands over its subjects and
// access count. The new vector goes to `pendingEmbedding` (with `vectorPendingSince`), outside the
// vector index: remember() indexes it right after the commit on the background writer, with others
// (facts/index_vectors: the index insertion is most of a commit's cost); the reads that must see it
// scan pending vectors.
OPTIONAL CALL (s, rule, matchedId) {
  WITH s, rule, matchedId WHERE rule IN ['insert', 'similar', 'refines']
  OPTIONAL MATCH (old:Fact {id: matchedId}) WHERE rule <> 'insert' AND old.supersededAt IS NULL
  WITH s, old, coalesce($type, old.type, 'fact') AS type
  CREATE (f:Fact {id: $id, content: $content, contentKey: $contentKey, words: $words, type: type,
                  importance: CASE WHEN $importance IS NOT NULL THEN $importance
                                   WHEN old.type = type THEN old.importance ELSE $defaultImportance[type] END,
                  createdAt: $now, updatedAt: $now,
                  expiresAt: CASE WHEN $setExpiry THEN $expiresAt ELSE old.expiresAt END,
                  accessCount: coalesce(old.accessCount, 0), lastAccessedAt: old.lastAccessedAt, source: $source,
                  scope: $scopeKind, scopeKey: $scopeKey, firstCreatedAt: coalesce(old.firstCreatedAt, old.createdAt, $now),
                  version: coalesce(old.version, 0) + 1})
  SET s.count = s.count + CASE WHEN old IS NULL THEN 1 ELSE 0 END
  WITH f, old
  CALL (f) {
    WITH f WHERE $vector IS NOT NULL
    CALL db.create.setNodeVectorProperty(f, 'pendingEmbedding', $vector)
    SET f.vectorPendingSince = $now
  }
  CALL (f, old) {
    WITH f, old WHERE old IS NOT NULL
    CREATE (f)-[:SUPERSEDES {at: $now}]->(old)
    SET old.supersededAt = $now, old.updatedAt = $now
    REMOVE old.embedding, old.pendingEmbedding, old.vectorPendingSince
    WITH f, old
    MATCH (old)-[:ABOUT]->(x:Subject)
    MERGE (f)-[:ABOUT]->(x)
  }
  RETURN f.id AS writtenId
}
// unchanged: the matched fact takes the new subjects, provenance and expiry (when one was given)
OPTIONAL CALL (rule, matchedId) {
  WITH rule, matchedId WHERE rule IN ['same', 'contained']
  MATCH (f:Fact {id: matchedId})
  SET f.expiresAt = CASE WHEN $setExpiry THEN $expiresAt ELSE f.expiresAt END
  RETURN f.id AS keptId
}
// (the subqueries return ids: on 2026.08.1 a node returned by an OPTIONAL CALL that writes is not
// null when the call yields no row, though it has no id and no properties)
WITH s, e, hits, complete, m, rule, coalesce(writtenId, keptId) AS factId
OPTIONAL MATCH (f:Fact {id: factId})
CALL (f) {
  WITH f WHERE f IS NOT NULL
  UNWIND $subjects AS name
  MERGE (x:Subject {name: name})
  MERGE (f)-[:ABOUT]->(x)
}
CALL (f) {
  OPTIONAL MATCH (t:Turn {id: $turnId})
  WITH f, t WHERE f IS NOT NULL AND t IS NOT NULL
  MERGE (f)-[:EXTRACTED_FROM]->(t)
}
RETURN rule, s.count AS count, hits, complete, m AS matched,
       CASE WHEN f IS NULL THEN null ELSE f {.id, .content, .type, .importance, createdAt: toString(f.createdAt), updatedAt: toString(f.updatedAt),
         expiresAt: toString(f.expiresAt), .accessCount, lastAccessedAt: toString(f.lastAccessedAt), .source, .scope, .scopeKey,
         subjects: [(f)-[:ABOUT]->(x:Subject) | x.name]} END AS fact,
       CASE WHEN e IS NULL THEN null ELSE e {.id, .content, .type, .importance, createdAt: toString(e.createdAt), updatedAt: toString(e.updatedAt), expiresAt: toString(e.expiresAt),
         .accessCount, lastAccessedAt: toString(e.lastAccessedAt), .source, .scope, .scopeKey, subjects: [(e)-[:ABOUT]->(x:Subject) | x.name]} END AS same
