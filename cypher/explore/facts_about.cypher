// Facts about a subject: every Fact ABOUT the Subject (name matched without regard to case), the
// current ones first and the most important first, with the turn it was EXTRACTED_FROM and the
// older version it SUPERSEDES, if any (a superseded fact has supersededAt set).
// Parameters: $subject, e.g.  :param subject => 'postgres'
// Graph: (:Fact)-[:ABOUT]->(:Subject), (:Fact)-[:EXTRACTED_FROM]->(:Turn), (:Fact)-[:SUPERSEDES]->(:Fact);
// table: one row per fact.
MATCH about = (f:Fact)-[:ABOUT]->(subj:Subject)
WHERE toLower(subj.name) = toLower($subject)
OPTIONAL MATCH source = (f)-[:EXTRACTED_FROM]->(:Turn)
OPTIONAL MATCH older = (f)-[:SUPERSEDES]->(:Fact)
RETURN about, source, older, f.content AS fact, f.type AS type, f.importance AS importance, f.scope AS scope,
       f.supersededAt IS NULL AS current, f.expiresAt AS expiresAt
ORDER BY current DESC, importance DESC, fact
