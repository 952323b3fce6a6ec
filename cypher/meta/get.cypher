OPTIONAL MATCH (m:GraphMemMeta {key: $key})
RETURN m {.*} AS meta
