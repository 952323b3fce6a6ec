"""Scope isolation under adversarial data (issue #8), a smaller version of
``graphmem reliability isolation``: near-identical projects (``a/b`` / ``a/bc`` / ``a/b c`` /
``a/b-c`` / ``a/B``, a nested project, NFC and NFD ``café``), symlinks, trailing slashes, session ids
that differ by punctuation; every search (all modes, level sets, the exact / index / over-fetch
vector paths), context build, fact injection and MCP call is checked on every item it returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem_devtools.reliability.isolation import IsolationConfig, run_isolation

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


def test_no_item_crosses_a_scope(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    cfg = IsolationConfig(
        adversarial_projects=8, extra_projects=0, sessions_per_dir=1, turns_per_session=2,
        level_sets=((0, 1, 2, 3), (1,)), session_level_sets=((0, 1, 2, 3),), mcp_dirs=3,
        context_scopes=("session", "project", "everything"),
    )
    target = (neo4j_target.uri, neo4j_target.user, neo4j_target.password)
    rep, _ = run_isolation(target, cfg, base_dir=tmp_path)
    assert rep.leaks == []
    assert rep.errors == []  # a call that raised returned nothing to check: a failure, not a pass
    assert rep.dropped_by_final_check == []
    assert rep.recall_misses == []
    assert rep.ok
    # the data is what the test means it to be
    assert rep.data["projects"] == 8 and rep.data["directories"] >= 17
    actions = rep.data["fact_remember_actions"]  # project and session facts: never merged across scopes
    assert set(actions) <= {"inserted", "global inserted", "global updated"}, actions
    assert {"1", "2"} <= set(rep.data["summaries_by_level"])
    # every vector path ran: exact scan, the index (in-index filter on 2026.x, over-fetch on 5.26)
    seen = {key.split(":", 1)[1] for key in rep.strategies}
    assert {"exact", "text"} <= seen
    assert seen & {"index-filtered", "index-overfetch"}
    if neo4j_target.version.startswith("2026"):
        assert {"index-filtered", "index-overfetch"} <= seen
    for kind in ("search session", "search directory", "search project", "search everything", "build_context",
                 "inject_facts", "nearest_facts exact", "nearest_facts index", "mcp memory_search",
                 "mcp memory_context", "mcp recent_sessions", "mcp memory_search_facts", "mcp memory_store_fact",
                 "mcp memory_forget"):
        assert rep.checks[kind] > 0, kind
    assert rep.items["hit"] > 500 and rep.items["fact"] > 50 and rep.items["mcp item"] > 50
