CREATE INDEX fact_judge_calls IF NOT EXISTS FOR (f:Fact) ON (f.judgeCalls)
