// Tests only: every kind of value a statement can return (node, relationship, path, nested lists and
// maps, a float vector, a temporal value) for one session, so the test can compare graphmem's row
// conversion with the driver's Record.data().
MATCH p = (s:Session {id: $sessionId})-[r:HAS_TURN]->(t:Turn)
RETURN s, r, t, p, [t, s] AS nodes, {node: t, rel: r, vec: [1.5, 2.5, -0.25], ints: [1, 2]} AS m,
       [[0.5, 1.0], [2.0]] AS nested, [1, 'a', 2.0] AS mixed, t.timestamp AS ts, null AS nothing
LIMIT 1
