CREATE FULLTEXT INDEX note_text IF NOT EXISTS FOR (n:Note) ON EACH [n.title, n.text, n.tagText] OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}}
