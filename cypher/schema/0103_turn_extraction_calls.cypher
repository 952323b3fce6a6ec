CREATE INDEX turn_extraction_calls IF NOT EXISTS FOR (t:Turn) ON (t.extractionCalls)
