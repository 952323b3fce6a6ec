// The LLM usage recorded in the store, per purpose: summaries (on each summary), fact extraction (on
// the turns), the chat digest (on each digest) and the fact judge (on the facts). Each side seeks the
// index on its count property, so the sum reads only the nodes that carry usage.
MATCH (m:Summary) WHERE m.promptTokens IS NOT NULL
RETURN 'summaries' AS purpose, count(m) AS calls, sum(m.promptTokens) AS promptTokens,
       sum(coalesce(m.completionTokens, 0)) AS completionTokens, sum(coalesce(m.costUsd, 0.0)) AS costUsd
UNION ALL
MATCH (t:Turn) WHERE t.extractionCalls IS NOT NULL
RETURN 'fact extraction' AS purpose, sum(t.extractionCalls) AS calls, sum(t.extractionPromptTokens) AS promptTokens,
       sum(t.extractionCompletionTokens) AS completionTokens, sum(t.extractionCostUsd) AS costUsd
UNION ALL
MATCH (d:Digest) WHERE d.llmCalls IS NOT NULL
RETURN 'chat digest' AS purpose, sum(d.llmCalls) AS calls, sum(d.promptTokens) AS promptTokens,
       sum(d.completionTokens) AS completionTokens, sum(d.costUsd) AS costUsd
UNION ALL
MATCH (f:Fact) WHERE f.judgeCalls IS NOT NULL
RETURN 'fact judge' AS purpose, sum(f.judgeCalls) AS calls, sum(f.judgePromptTokens) AS promptTokens,
       sum(f.judgeCompletionTokens) AS completionTokens, sum(f.judgeCostUsd) AS costUsd
