// One fact-judge call that decided about fact $id: add its usage to the fact's judge totals.
MATCH (f:Fact {id: $id})
SET f.judgeCalls = coalesce(f.judgeCalls, 0) + 1,
    f.judgeModel = $model,
    f.judgePromptTokens = coalesce(f.judgePromptTokens, 0) + coalesce($promptTokens, 0),
    f.judgeCompletionTokens = coalesce(f.judgeCompletionTokens, 0) + coalesce($completionTokens, 0),
    f.judgeCostUsd = coalesce(f.judgeCostUsd, 0.0) + coalesce($costUsd, 0.0)
RETURN f.judgeCalls AS calls
