"""``graphmem bench warm-up`` at a tiny size, on a managed Neo4j of this module (the bench restarts it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem_devtools.bench.warmup import run_warm_up_bench
from graphmem_devtools.servers import ServerSpec

from ..servers import dedicated_server

pytestmark = pytest.mark.integration


def _conversation(name: str) -> dict[str, object]:
    utts = [{"speaker": "A", "dia_id": f"D1:{i}", "text": f"{name} talked about the garden and the bakery {i}"}
            for i in range(6)]
    return {"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": utts, "session_2": utts[:2]},
            "qa": [{"question": f"When did {name} talk about the garden?"}]}


@pytest.fixture(scope="module")
def managed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerSpec]:
    with dedicated_server(tmp_path_factory.mktemp("warm-up") / "home") as spec:
        yield spec


def test_bench_warm_up_times_cold_and_warmed_passes_and_cleans_up(
        managed: ServerSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"GRAPHMEM_HOME": str(managed.home), "GRAPHMEM_NEO4J_VERSION": managed.version,
                        "GRAPHMEM_BOLT_PORT": str(managed.bolt_port), "GRAPHMEM_HTTP_PORT": str(managed.http_port),
                        "GRAPHMEM_HEAP": managed.heap, "GRAPHMEM_PAGECACHE": managed.pagecache,
                        "GRAPHMEM_EMBEDDER": "local", "GRAPHMEM_UP_DAEMON": "0"}.items():
        monkeypatch.setenv(name, value)
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_conversation("Ann"), _conversation("Bob")]))
    result = run_warm_up_bench(data, pairs=1, questions=1, command="graphmem bench warm-up (smoke)")
    f = result.figures
    assert [len(p) for p in f["passes"]["cold"]] == [2] and [len(p) for p in f["passes"]["warmed"]] == [2]
    assert f["warm-up (searches, contexts, seconds)"]["runs"] == 1
    assert f["warm-up (searches, contexts, seconds)"]["searches"] == 3 * 5 * 2 * 3  # rounds, questions, scopes, searches
    assert "cold: first call" in result.markdown()
    from graphmem.memory import GraphMemory

    with GraphMemory.from_settings() as mem:  # the bench's sessions are gone
        assert mem.db.read("maintenance/sessions_under_path", path="/graphmem-bench",
                           prefix="/graphmem-bench/") == []
