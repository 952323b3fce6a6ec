// One fact-extraction call on turn $id: add its usage to the turn's extraction totals.
MATCH (t:Turn {id: $id})
SET t.extractionCalls = coalesce(t.extractionCalls, 0) + 1,
    t.extractionModel = $model,
    t.extractionPromptTokens = coalesce(t.extractionPromptTokens, 0) + coalesce($promptTokens, 0),
    t.extractionCompletionTokens = coalesce(t.extractionCompletionTokens, 0) + coalesce($completionTokens, 0),
    t.extractionCostUsd = coalesce(t.extractionCostUsd, 0.0) + coalesce($costUsd, 0.0)
RETURN t.extractionCalls AS calls
