// graphmem stats: sessions and turns per agent (claude-code, codex, gemini, aider, ...).
MATCH (s:Session)
RETURN coalesce(s.agent, '-') AS agent, count(s) AS sessions, sum(coalesce(s.turnCount, 0)) AS turns
ORDER BY sessions DESC
