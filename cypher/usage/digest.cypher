// The digest call of digest $id: its usage on the digest.
MATCH (d:Digest {id: $id})
SET d.llmCalls = coalesce(d.llmCalls, 0) + 1,
    d.model = $model,
    d.promptTokens = coalesce(d.promptTokens, 0) + coalesce($promptTokens, 0),
    d.completionTokens = coalesce(d.completionTokens, 0) + coalesce($completionTokens, 0),
    d.costUsd = coalesce(d.costUsd, 0.0) + coalesce($costUsd, 0.0)
RETURN d.llmCalls AS calls
