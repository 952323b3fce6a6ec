CREATE INDEX summary_prompt_tokens IF NOT EXISTS FOR (m:Summary) ON (m.promptTokens)
