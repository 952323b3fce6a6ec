// The LLM usage recorded on one turn (fact extraction) or one fact (the judge), by id.
OPTIONAL MATCH (t:Turn {id: $id})
OPTIONAL MATCH (f:Fact {id: $id})
RETURN coalesce(t.extractionCalls, f.judgeCalls) AS calls,
       coalesce(t.extractionPromptTokens, f.judgePromptTokens) AS promptTokens,
       coalesce(t.extractionCompletionTokens, f.judgeCompletionTokens) AS completionTokens,
       coalesce(t.extractionCostUsd, f.judgeCostUsd) AS costUsd,
       coalesce(t.extractionModel, f.judgeModel) AS model
