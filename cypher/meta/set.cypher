MERGE (m:GraphMemMeta {key: $key})
SET m += $props, m.updatedAt = datetime()
RETURN m {.*} AS meta
