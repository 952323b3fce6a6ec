"""A caller's wrong argument through the library is one :class:`InvalidInput` line naming it, and
nothing is lost or half written: a forget with a bad reason deletes nothing, an import with a bad
turn stores none, a string where a list belongs is not read letter by letter."""

from __future__ import annotations

import contextlib
import io
import math
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory, InvalidInput, NotFound
from graphmem.cli.main import main
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactScope, forget

from ..conftest import Neo4jTarget

pytestmark = pytest.mark.integration


@pytest.fixture
def fmem(database: Database, local_embedder: LocalEmbedder) -> GraphMemory:
    return GraphMemory(database, embedder=local_embedder)


def test_a_forget_with_a_bad_reason_or_limit_deletes_nothing(fmem: GraphMemory, namespace: str) -> None:
    scope = FactScope.project(namespace + "/p")
    kept = fmem.remember("Alice prefers tea over coffee", ["alice"], scope=scope)
    for bad in (123, b"bytes", ["why"]):
        with pytest.raises(InvalidInput, match=r"^reason must be a string"):
            fmem.forget(kept.fact.id, reason=bad)  # type: ignore[arg-type]
    for bad_kw in ({"limit": "5"}, {"limit": 0}, {"min_score": float("nan")}):
        with pytest.raises(InvalidInput, match=f"^{next(iter(bad_kw))} must"):
            forget(fmem.db, kept.fact.id, **bad_kw)  # type: ignore[arg-type]
    for topic in (5, None, "   "):
        with pytest.raises(InvalidInput, match=r"^forget needs a topic or a fact id"):
            fmem.forget(topic)  # type: ignore[arg-type]
    assert [f.id for f in fmem.list_facts(scopes=[scope])] == [kept.fact.id]
    assert fmem.forget(kept.fact.id, reason="asked").removed[0].id == kept.fact.id


def test_subjects_are_a_list_of_strings(fmem: GraphMemory, namespace: str) -> None:
    scope = FactScope.project(namespace + "/p")
    with pytest.raises(InvalidInput, match=r"^subjects must be a list of strings, not a single str \(write \['alice'\]\)"):
        fmem.remember("Alice climbs on Sundays", "alice", scope=scope)  # type: ignore[arg-type]
    for bad, field in (([None], r"subjects\[0\]"), (["bob", {"x": 1}], r"subjects\[1\]"), (5, "subjects")):
        with pytest.raises(InvalidInput, match=f"^{field} must be"):
            fmem.remember("Alice climbs on Sundays", bad, scope=scope)  # type: ignore[arg-type]
    for bad_kw, field in (({"importance": "high"}, "importance"), ({"importance": 1.5}, "importance"),
                          ({"source": {"a": 1}}, "source"), ({"type": ["goal"]}, "type")):
        with pytest.raises(InvalidInput, match=f"^{field} must"):
            fmem.remember("Alice climbs on Sundays", ["alice"], scope=scope, **bad_kw)  # type: ignore[arg-type]
    assert fmem.list_facts(scopes=[scope]) == []  # nothing was stored by the refused calls
    stored = fmem.remember("Alice climbs on Sundays", ("Alice", "alice "), scope=scope)
    assert stored.fact.subjects == ["alice"]
    assert [f.id for f in fmem.facts_about("ALICE", scopes=[scope])] == [stored.fact.id]
    for blank in (None, "", "   ", 7):
        with pytest.raises(InvalidInput, match=r"^subject must be"):
            fmem.facts_about(blank, scopes=[scope])  # type: ignore[arg-type]


def test_fact_listings_refuse_what_they_would_silently_ignore(fmem: GraphMemory, namespace: str) -> None:
    scope = FactScope.project(namespace + "/p")
    fact = fmem.remember("The build uses Python 3.11", ["build"], type="decision", scope=scope).fact
    yesterday = datetime.now(UTC) - timedelta(days=1)
    # a naive time is read as UTC, as everywhere; a timedelta counts back from now
    assert [f.id for f in fmem.list_facts(scopes=[scope], since=yesterday.replace(tzinfo=None))] == [fact.id]
    assert [f.id for f in fmem.list_facts(scopes=[scope], since=timedelta(days=1))] == [fact.id]
    for bad in ({"since": "yesterday"}, {"since": yesterday.date()}, {"since": 1778000000},
                {"min_importance": "x"}, {"min_importance": float("nan")}, {"limit": -1}, {"limit": None},
                {"limit": 2**70}, {"type": "nonsense"}):
        with pytest.raises(InvalidInput, match=f"^({next(iter(bad))} must|unknown fact type)"):
            fmem.list_facts(scopes=[scope], **bad)  # type: ignore[arg-type]
    fmem.await_text_index()
    assert [f.id for f in fmem.search_facts("Python version of the build", scopes=[scope], types=["decision"])] == [fact.id]
    assert fmem.search_facts("Python version of the build", scopes=[scope], types=["goal"]) == []
    for bad_search, field in (({"types": "decision"}, "types"), ({"types": ["decisions"]}, "unknown fact type"),
                              ({"types": [None]}, r"types\[0\]"), ({"limit": "5"}, "limit")):
        with pytest.raises(InvalidInput, match=f"^{field}"):
            fmem.search_facts("Python", scopes=[scope], **bad_search)  # type: ignore[arg-type]
    assert fmem.search_facts("   ", scopes=[scope]) == []
    with pytest.raises(InvalidInput, match=r"^limit must be an integer"):
        fmem.facts_as_of(datetime.now(UTC), scopes=[scope], limit="3")  # type: ignore[arg-type]


def test_tool_call_times_need_their_zone_like_turn_times(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    naive = datetime(2026, 5, 1, 12, 0)
    cyclic: list[object] = []
    cyclic.append(cyclic)
    for call, field in (({"name": "Bash", "timestamp": naive}, r"tool_calls\[0\]\.timestamp"),
                        ({"name": "Bash", "timestamp": "2026-05-01T12:00:00"}, r"tool_calls\[0\]\.timestamp"),
                        ({"name": "Bash", "duration_ms": -5}, r"tool_calls\[0\]\.duration_ms"),
                        ({"name": "Bash", "duration_ms": 2**70}, r"tool_calls\[0\]\.duration_ms"),
                        ({"name": "  "}, r"tool_calls\[0\]\.name"),
                        ({"name": "Bash", "args": {"ratio": float("nan")}}, r"tool_calls\[0\]\.args"),
                        ({"name": "Bash", "args": cyclic}, r"tool_calls\[0\]\.args")):
        with pytest.raises(InvalidInput, match=f"^{field}: "):
            memory.store_turn(s.id, "run the tests", "done", tool_calls=[call])
    with pytest.raises(InvalidInput, match=r"^turn\.timestamp: .*timezone-aware"):
        memory.store_turn(s.id, "run the tests", "done", timestamp=naive)
    aware = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    t = memory.store_turn(s.id, "run the tests", "done", tool_calls=[
        {"name": "Bash", "timestamp": "2026-05-01T12:00:00+02:00", "duration_ms": 1200}], timestamp=aware)
    stored = memory.get_turn(t.id).tool_calls[0]
    assert stored.timestamp == datetime(2026, 5, 1, 10, 0, tzinfo=UTC) and stored.duration_ms == 1200
    assert [x.id for x in memory.recent_turns(s.id)] == [t.id]
    with pytest.raises(NotFound, match=r"^turn not found"):
        memory.get_turn(str(uuid.uuid4()))
    for bad_limit in ({"limit": -1}, {"max_chars": "5"}):
        with pytest.raises(InvalidInput, match=f"^{next(iter(bad_limit))} must"):
            memory.recent_turns(s.id, **bad_limit)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"^limit must"):
        memory.sessions_for(namespace, limit=0)
    with pytest.raises(InvalidInput, match=r"^actions must be a list of strings"):
        memory.file_history(namespace, "a.py", actions="edit")  # type: ignore[arg-type]


def test_an_import_with_one_bad_turn_stores_none(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    at = datetime(2026, 5, 1, tzinfo=UTC)
    turns = [{"user_message": f"question {n}", "assistant_message": f"answer {n}", "timestamp": at + timedelta(minutes=n),
              "source_id": f"m{n}"} for n in range(7)]
    turns[5]["timestamp"] = datetime(2026, 5, 1, 12, 0)  # naive
    with pytest.raises(InvalidInput, match=r"^turns\[5\]\.timestamp: .*timezone-aware"):
        memory.import_turns(s.id, turns, batch_size=2)
    assert memory.load_session(s.id).turns == []
    turns[5]["timestamp"] = at + timedelta(minutes=5)
    assert memory.import_turns(s.id, turns, batch_size=2).created == 7


def test_search_arguments_of_the_wrong_kind_are_named(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    memory.store_turn(s.id, "we chose exponential backoff for retries", "yes, capped at 30 s")
    scope = f"directory:{namespace}"
    memory.await_text_index()
    assert memory.search("backoff retries", scope=scope, mode="text", min_score=0).hits
    assert memory.search("backoff retries", scope=f"session: {s.id} ", mode="text").hits
    with pytest.raises(InvalidInput, match=r"^invalid session id: must be a non-empty string of at most 512"):
        memory.search("backoff retries", scope="session:" + "x" * 600)
    for bad, field in (({"min_score": float("nan")}, "min_score"), ({"min_score": "0.5"}, "min_score"),
                       ({"min_score": True}, "min_score"), ({"scope": 5}, "scope"), ({"levels": None}, "levels"),
                       ({"levels": 0}, "levels"), ({"levels": [0, "1"]}, "levels"), ({"locale": None}, "locale"),
                       ({"with_embeddings": "no"}, "with_embeddings")):
        with pytest.raises(InvalidInput, match=f"^{field} must"):
            memory.search("backoff", **{"scope": scope, **bad})  # type: ignore[arg-type]


def test_a_session_of_the_wrong_kind_is_refused_and_not_created(memory: GraphMemory, namespace: str) -> None:
    for cwd in (None, 123, namespace.encode()):
        with pytest.raises(InvalidInput, match=r"^a working directory must be a path string"):
            memory.create_session(cwd)  # type: ignore[arg-type]
    for bad_kw, said in (({"agent": 123}, "agent must be a string"), ({"title": ["x"]}, "title must be a string"),
                         ({"started_at": "2026-05-01T12:00:00Z"}, "timestamps must be timezone-aware datetimes")):
        with pytest.raises(InvalidInput, match=f"^{said}"):
            memory.create_session(namespace, **bad_kw)  # type: ignore[arg-type]
    assert memory.sessions_for(namespace) == []


def test_a_query_vector_or_reference_time_out_of_range_is_named_or_set_aside(fmem: GraphMemory, namespace: str) -> None:
    s = fmem.create_session(namespace)
    fmem.store_turn(s.id, "we chose exponential backoff for retries", "yes, capped at 30 s")
    fmem.embed_pending()
    fmem.await_text_index()
    scope = f"directory:{namespace}"
    assert fmem.embedder is not None
    dims = fmem.embedder.dimensions
    for bad in ([math.nan] * dims, [math.inf] + [0.1] * (dims - 1)):
        result = fmem.searcher().search("backoff retries", scope=scope, vector=bad)
        assert result.hits and any("NaN or infinite" in w for w in result.warnings)
    for now in (datetime.max, datetime.min.replace(tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)):
        with pytest.raises(InvalidInput, match=r"^now must fall between the years 2 and 9998"):
            fmem.search("backoff a year ago", scope=scope, now=now)
    for now in (datetime(2, 1, 1, tzinfo=UTC), datetime(9998, 12, 31, 23, 59, tzinfo=UTC)):
        fmem.search("what did we choose a year ago, in the last 400 years, last weekend", scope=scope, now=now)
    for message, said in ((None, "message must be a string or a list of strings"), (["retries", 5], r"message\[1\]")):
        with pytest.raises(InvalidInput, match=f"^{said}"):
            fmem.inject_facts(s.id, message)  # type: ignore[arg-type]
    assert fmem.inject_facts(s.id, ["retries", "  "]).skipped is None


def test_a_file_path_with_a_lone_surrogate_is_stored_and_found_like_any_text(memory: GraphMemory, namespace: str) -> None:
    s = memory.create_session(namespace)
    broken = f"{namespace}/src/caf\udce9.py"  # a Latin-1 name read with surrogateescape
    memory.store_turn(s.id, "fix the cafe module", "done", tool_calls=[
        {"name": "Edit", "args": {"file_path": broken}, "result": "ok", "success": True}])
    history = memory.file_history(namespace, broken)
    assert history.path == "src/caf\ufffd.py" and [t.action for t in history.touches] == ["edit"]


def test_cli_values_out_of_range_are_one_line_and_exit_2(neo4j_target: Neo4jTarget, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # each of these ended in a traceback: OverflowError from the driver, UnicodeEncodeError, OSError,
    # or ValueError from a time that is not ISO
    for k, v in neo4j_target.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "none")
    out = tmp_path / "exports"
    out.mkdir()
    monkeypatch.chdir(out)
    huge = "9" * 25
    cases = [
        (["search", "hello", "--mode", "text", f"--levels={huge}"], "levels must be"),
        (["facts", "audits", f"--limit={huge}"], "limit must be between"),
        (["retrievals", "list", f"--limit={huge}"], "limit must be between"),
        (["retrievals", "list", "--session=" + "\udcff" * 600], "invalid session id"),
        (["retrievals", "show", "x" * 600], "invalid retrieval id"),
        (["export", "--session", "y" * 600], "invalid session id"),
        (["export", "--output", str(out / ("z" * 300))], "cannot write the export"),
        (["export", "--output", str(out)], "cannot write the export"),
        (["chat", "observe", "room", "bob", "hi", "--at", "2026-13-45"], "--at takes an ISO time"),
        (["digest", "list", f"--limit={huge}"], "limit must be between"),
    ]
    for argv, said in cases:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
        lines = err.getvalue().strip().splitlines()
        assert code == 2 and len(lines) == 1 and said in lines[0] and len(lines[0]) < 300, (argv[:2], lines)
    assert list(out.iterdir()) == []  # no half-written export left behind
    # a directory no system allows finds no sessions and is not echoed back whole
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["sessions", "list", "--cwd", "/" + "d" * 20_000])
    assert code == 0 and err.getvalue().startswith("no sessions for '/ddd") and len(err.getvalue()) < 300


def test_note_listings_name_a_bad_limit_or_k(database: Database, tmp_path: Path) -> None:
    # a string limit or k was compared with an integer (TypeError)
    from graphmem.notes.store import NotesConfig

    mem = GraphMemory(database, notes=NotesConfig(vault=tmp_path))
    for call, said in ((lambda: mem.list_notes(limit=""), "^limit must be an integer"),  # type: ignore[arg-type]
                       (lambda: mem.list_notes(fixed_only="yes"), "^fixed_only must be"),  # type: ignore[arg-type]
                       (lambda: mem.search_notes("x", k="5"), "^k must be an integer")):  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match=said):
            call()
    assert mem.list_notes() == []
