// The audit record of a forget: when, why, how it matched and which facts (ids, types, scopes, and
// the ids of every version removed with them), never their text; the topic is kept only as a hash.
CREATE (a:ForgetAudit {id: $id, at: $now, reason: $reason, method: $method, topicHash: $topicHash,
                       count: size($factIds), factIds: $factIds, types: $types, scopeKeys: $scopeKeys,
                       versionIds: $versionIds})
RETURN a.id AS id
