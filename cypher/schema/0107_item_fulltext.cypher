CREATE FULLTEXT INDEX item_search IF NOT EXISTS FOR (i:Item) ON EACH [i.text] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
