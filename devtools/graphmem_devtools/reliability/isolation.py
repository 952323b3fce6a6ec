"""``graphmem reliability isolation``: scope isolation under adversarial data, checked on every result.

The data (on the real file system, under a fresh base directory, so that project detection works
as it does for people): projects (directories holding ``.git``) whose paths are near-identical or
tricky -- ``a/b`` next to ``a/bc``, ``a/b c``, ``a/b-c`` and ``a/B``, a project nested in another
(``a/b/nested``), NFC and NFD spellings of ``café`` (two different directories that print alike),
Japanese, stopword-only names (``the/a/is``), Lucene syntax characters (``x:y``, ``q"uote``, ``st*ar``,
``back\\slash``) -- each with sub-directories; sessions created through symlinks and with trailing
slashes (normalised to the real directory); session ids that differ only by punctuation or case
(``-x-1``, `` x 1``, ``_x_1``, ``-X-1``). Every session holds near-identical turns (same words,
same tool calls) that differ by one token, its *marker*; the summarizer worker writes level-1
summaries and rolls them up to levels 2 and 3. Facts live in the global scope, in every project and
in every session, again near-identical except for a marker.

Then, and every result is checked (not sampled):

* every search: every session, directory and project scope and everything; hybrid, semantic and
  text; several level sets; three queries (the common words, a foreign marker of a near-identical
  neighbour scope, the scope's own marker); the vector side forced to the exact scan, to the vector
  index (in-index filtering on 2026.x, over-fetch + post-filter on 5.26) and, on 2026.x, to the
  5.26 over-fetch + post-filter statements as well;
* every ``build_context`` (each session, scopes session/directory/project/everything);
* every fact injection, fact search (each vector strategy forced), ``facts_about``,
  ``list_facts`` and a dry-run ``forget`` of a foreign marker;
* MCP tool calls over stdio through the official SDK client: ``memory_search`` (all modes and
  scope spellings), ``memory_context``, ``recent_sessions``, ``memory_search_facts``,
  ``memory_store_fact`` and ``memory_forget``.

An item is in scope when the ground truth says so: turn ids as acknowledged by ``store_turn``,
summaries whose ``SUMMARIZES`` tree reaches only that session's turns, fact ids as returned by
``remember``. Besides the id, every text returned is scanned for markers, and each marker found
must belong to the scope. Leaks, and hits the final in-code scope check had to drop (logged by
the searcher; they mean a statement returned something outside its scope), are counted and listed.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graphmem.embedding import query_vector
from graphmem.errors import GraphMemError

from ..bench.common import BenchResult, machine_info, write_results

__all__ = ["IsolationConfig", "IsolationReport", "register", "run_isolation"]

log = logging.getLogger("graphmem_devtools.reliability.isolation")

COMMON_USER = "The deploy pipeline times out on the integration step again, how do we fix the flaky timeout"
COMMON_ASSISTANT = ("Raise the integration step timeout to 30 minutes and retry the flaky deploy step once; "
                    "the pipeline cache was also cold")
COMMON_QUERY = "flaky deploy pipeline timeout integration step"
FACT_QUERY = "how do we deploy and what is the pipeline timeout"

# (relative project path, sub-directories); paths are joined to the base directory
_ADVERSARIAL_PROJECTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("a/b", ("src", "src/deep")),
    ("a/bc", ("src",)),
    ("a/b c", ("src",)),
    ("a/b-c", ("src",)),
    ("a/B", ("src",)),
    ("a/b/nested", ("src",)),
    (unicodedata.normalize("NFC", "café"), ("src",)),
    (unicodedata.normalize("NFD", "café"), ("src",)),
    ("プロジェクト", ("ソース",)),
    ("the/a/is", ("it",)),
    ("x:y", ("z",)),
    ('q"uote', ("src",)),
    ("st*ar", ("src",)),
    ("back\\slash", ("src",)),
)


@dataclass(frozen=True)
class IsolationConfig:
    """Sizes of one isolation run."""

    adversarial_projects: int = len(_ADVERSARIAL_PROJECTS)
    """How many of the adversarial projects to build (in order; smoke runs take fewer)."""
    extra_projects: int = 8
    """Plain projects ``p00``... added to the adversarial ones."""
    sessions_per_dir: int = 2
    turns_per_session: int = 4
    level_sets: tuple[tuple[int, ...], ...] = ((0, 1, 2, 3), (0,), (1,), (2, 3))
    session_level_sets: tuple[tuple[int, ...], ...] = ((0, 1, 2, 3), (1,))
    """Level sets for the (many) session scopes."""
    mcp: bool = True
    mcp_dirs: int | None = None
    """MCP calls for at most this many directories / sessions (None: all)."""
    context_scopes: tuple[str, ...] = ("session", "directory", "project", "everything")


@dataclass
class IsolationReport:
    checks: Counter[str] = field(default_factory=Counter)
    """Calls made, by kind."""
    items: Counter[str] = field(default_factory=Counter)
    """Returned items verified, by kind."""
    leaks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Calls that raised (a failing call returns nothing to check; listed, and a failure of the run)."""
    recall_misses: list[str] = field(default_factory=list)
    dropped_by_final_check: list[str] = field(default_factory=list)
    strategies: Counter[str] = field(default_factory=Counter)
    data: dict[str, Any] = field(default_factory=dict)
    timings_s: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.leaks and not self.errors and not self.dropped_by_final_check and not self.recall_misses

    def error(self, what: str) -> None:
        if len(self.errors) < 10_000:
            self.errors.append(what)
        log.error("ERROR: %s", what)

    def leak(self, what: str) -> None:
        if len(self.leaks) < 10_000:
            self.leaks.append(what)
        log.error("LEAK: %s", what)

    def to_dict(self) -> dict[str, Any]:
        return {"checks": dict(self.checks), "checks_total": sum(self.checks.values()),
                "items": dict(self.items), "items_total": sum(self.items.values()),
                "leaks": len(self.leaks), "leak_examples": self.leaks[:50],
                "errors": len(self.errors), "error_examples": self.errors[:50],
                "dropped_by_final_check": len(self.dropped_by_final_check),
                "dropped_examples": self.dropped_by_final_check[:20],
                "recall_misses": len(self.recall_misses), "recall_miss_examples": self.recall_misses[:50],
                "strategies": dict(self.strategies), "data": self.data, "timings_s": self.timings_s}


class _DropWatch(logging.Handler):
    """Collects the searcher's "dropped a hit outside the scope" errors (its last line of defence)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if "outside the scope" in msg:
            self.records.append(msg)


@dataclass
class _SessionInfo:
    id: str
    n: int
    cwd: str
    project: str
    marker: str
    fact_marker: str
    turn_ids: list[str] = field(default_factory=list)


@dataclass
class _World:
    """The ground truth."""

    run: str
    base: Path
    sessions: dict[str, _SessionInfo] = field(default_factory=dict)
    item_session: dict[str, str] = field(default_factory=dict)
    """Turn and summary id -> session id."""
    summary_levels: Counter[int] = field(default_factory=Counter)
    facts: dict[str, str] = field(default_factory=dict)
    """Fact id -> scope key (as remembered)."""
    project_markers: dict[str, str] = field(default_factory=dict)
    """Project path -> its facts' marker."""
    global_markers: set[str] = field(default_factory=set)
    dirs: dict[str, str] = field(default_factory=dict)
    """Directory -> project."""
    twins: dict[str, str] = field(default_factory=dict)
    """Project -> a near-identical other project (its markers are the adversarial queries)."""
    fact_actions: Counter[str] = field(default_factory=Counter)

    def marker_re(self) -> re.Pattern[str]:
        return re.compile(r"iso[0-9a-f]{8}[sfpg]\d{4}")

    def marker_owner(self) -> dict[str, tuple[str, str]]:
        """marker -> (kind, owner): ('session', sid) for turn markers, ('fact-session', sid),
        ('fact-project', path), ('fact-global', '')."""
        out: dict[str, tuple[str, str]] = {}
        for s in self.sessions.values():
            out[s.marker] = ("session", s.id)
            out[s.fact_marker] = ("fact-session", s.id)
        for p, m in self.project_markers.items():
            out[m] = ("fact-project", p)
        for m in self.global_markers:
            out[m] = ("fact-global", "")
        return out


def _marker(run: str, kind: str, n: int) -> str:
    return f"iso{run}{kind}{n:04d}"


def _mkdir_git(path: Path) -> None:
    (path / ".git").mkdir(parents=True, exist_ok=True)


def _build_world(mem: Any, cfg: IsolationConfig, base: Path, run: str, say: Callable[[str], None]) -> _World:
    from graphmem.facts import FactScope
    from graphmem.paths import find_project_root, normalize_cwd

    w = _World(run=run, base=base)
    projects = list(_ADVERSARIAL_PROJECTS[: cfg.adversarial_projects]) + [(f"p{i:02d}", ("src", "src/lib")) for i in range(cfg.extra_projects)]
    dirs_in_order: list[tuple[str, list[str]]] = []  # (real dir, spellings used to create sessions)
    for rel, subs in projects:
        root = base / rel
        _mkdir_git(root)
        for sub in ("", *subs):
            dpath = root / sub if sub else root
            dpath.mkdir(parents=True, exist_ok=True)
            dirs_in_order.append((str(dpath), [str(dpath), str(dpath) + "/"]))
    # symlinks: one to a sub-directory, one from inside a project into another project
    links = base / "links"
    links.mkdir(exist_ok=True)
    if (base / "a/bc/src").is_dir():
        os.symlink(base / "a/bc/src", links / "to-a-bc-src")
    if (base / "a/b c").is_dir() and (base / "a/b").is_dir():
        os.symlink(base / "a/b c", base / "a/b/vendor-b-space")
    for d, spellings in dirs_in_order:
        if d == str(base / "a/bc/src"):
            spellings.append(str(links / "to-a-bc-src"))
        if d == str(base / "a/b c"):
            spellings.append(str(base / "a/b/vendor-b-space"))
    # session ids: mostly unique, some differing only by punctuation or case
    odd_ids = [f"{run}-x-1", f"{run} x 1", f"{run}_x_1", f"{run}-X-1", f"{run}-x-10", f"{run}:x:1"]
    n = 0
    for d, spellings in dirs_in_order:
        real = normalize_cwd(d)
        project = find_project_root(real)
        w.dirs[real] = project
        for j in range(cfg.sessions_per_dir):
            spelling = spellings[(n + j) % len(spellings)]
            sid = odd_ids[n] if n < len(odd_ids) else f"{run}-s{n:04d}"
            s = mem.create_session(spelling, session_id=sid, agent="isolation")
            if s.cwd != real or s.project_path != project:
                raise AssertionError(f"session created in {spelling!r} got cwd {s.cwd!r} project {s.project_path!r}")
            info = _SessionInfo(s.id, n, s.cwd, s.project_path, _marker(run, "s", n), _marker(run, "f", n))
            for t in range(cfg.turns_per_session):
                turn = mem.store_turn(
                    s.id, f"{COMMON_USER} (marker {info.marker}, step {t})",
                    f"{COMMON_ASSISTANT}. Marker {info.marker}.",
                    [{"name": "Bash", "args": {"command": "make deploy", "marker": info.marker},
                      "result": f"timeout after 600 s {info.marker}", "success": t % 2 == 0}],
                )
                info.turn_ids.append(turn.id)
                w.item_session[turn.id] = s.id
            w.sessions[s.id] = info
            n += 1
    say(f"{len(w.sessions)} sessions in {len(w.dirs)} directories of {len(set(w.dirs.values()))} projects")
    # twins: each project's near-identical neighbour (the adversarial foreign markers)
    plist = sorted(set(w.dirs.values()))
    for i, p in enumerate(plist):
        name = p[len(str(base)) + 1:]
        pref = {"a/b": "a/bc", "a/bc": "a/b", "a/b c": "a/b-c", "a/b-c": "a/b c", "a/B": "a/b",
                "a/b/nested": "a/b"}.get(name)
        if unicodedata.normalize("NFC", name) == unicodedata.normalize("NFC", "café"):
            pref = unicodedata.normalize("NFD" if name == unicodedata.normalize("NFC", name) else "NFC", "café")
        twin = str(base / pref) if pref else plist[(i + 1) % len(plist)]
        w.twins[p] = twin if twin in plist else plist[(i + 1) % len(plist)]
    # facts: global, per project, per session -- near-identical text, one marker each
    results: Counter[str] = Counter()
    global_texts = ("The user prefers short deploy summaries in the terminal", "The user's dog is called Biscuit")
    for g, text in enumerate(global_texts):  # two unrelated global facts (similar ones would be merged)
        m = _marker(run, "g", g)
        r = mem.remember(f"{text} (marker {m})", ["iso-shared"], type="preference", scope="global")
        results[f"global {r.action}"] += 1  # may update a leftover global fact of an earlier run: same scope
        w.facts[r.fact.id] = r.fact.scope_key
        w.global_markers.add(m)
    for i, p in enumerate(plist):
        m = _marker(run, "p", i)
        w.project_markers[p] = m
        r = mem.remember(f"Decision: deploy this project with blue-green and keep the pipeline timeout at 30 "
                         f"minutes (marker {m})", ["iso-shared"], type="decision", scope=FactScope.project(p))
        results[r.action] += 1
        w.facts[r.fact.id] = r.fact.scope_key
        if r.action != "inserted" or r.fact.scope_key != f"project:{p}":
            raise AssertionError(f"project fact for {p!r}: {r.action} into {r.fact.scope_key!r} ({r.reason})")
    for s in w.sessions.values():
        r = mem.remember(f"Todo in this session: fix the flaky deploy pipeline timeout (marker {s.fact_marker})",
                         ["iso-shared"], type="todo", scope=FactScope.session(s.id))
        results[r.action] += 1
        w.facts[r.fact.id] = r.fact.scope_key
        if r.action != "inserted" or r.fact.scope_key != f"session:{s.id}":
            raise AssertionError(f"session fact for {s.id!r}: {r.action} into {r.fact.scope_key!r} ({r.reason})")
    w.fact_actions = results
    say(f"{len(w.facts)} facts remembered: {dict(results)}")
    return w


def _summarize(mem: Any, w: _World, cfg: IsolationConfig) -> None:
    """Embed and summarize (levels 1-3) the run's sessions, then record the summaries' ground truth."""
    from graphmem.worker import SummaryWorker, WorkerConfig

    turn_chars = len(COMMON_USER) + len(COMMON_ASSISTANT) + 60
    wc = WorkerConfig(scope=str(w.base), rollup_threshold_chars=max(300, turn_chars), rollup_growth=1.0,
                      rollup_min_children=2, poll_seconds=0.05, context_window=0)
    # no embedder in the worker: its embedding pass takes every pending turn of the database (other
    # users' backlog too); this run's turns and summaries are embedded below, by id
    SummaryWorker(mem.db, None, None, wc).run_until_idle(max_seconds=3600)
    _embed_run(mem, w)
    for s in w.sessions.values():
        summaries = mem.summaries(s.id)
        below = set(s.turn_ids)  # level n summarizes only this session's level n-1 items (turns for 1)
        for level in sorted({x.level for x in summaries}):
            ids = {x.id for x in summaries if x.level == level}
            for x in summaries:
                if x.level == level and (not x.child_ids or not set(x.child_ids) <= below):
                    raise AssertionError(f"summary {x.id} of {s.id!r} covers items outside the session")
            for sid_ in ids:
                w.item_session[sid_] = s.id
                w.summary_levels[level] += 1
            below = ids


def _embed_run(mem: Any, w: _World) -> None:
    """Embed this run's turns and summaries exactly as the embedding pass does (same statements: the
    vectors, the neighbour-averaged ``ctxEmbedding``, ``contextText``, the session documents), but
    only these ids."""
    from graphmem.embedding import (
        LONG_TURN_CHARS,
        embedding_hash,
        long_reply_head,
        refresh_context_vectors,
        refresh_session_docs,
        summary_embedding_text,
        turn_embedding_text,
    )

    emb = mem.embedder
    model = emb.model
    turn_ids: list[str] = []
    payload: list[dict[str, Any]] = []
    for s in w.sessions.values():
        detail = mem.load_session(s.id)
        texts = [turn_embedding_text(t.user_message, t.assistant_message, [c.name for c in t.tool_calls],
                                     reply_head_chars=long_reply_head(emb))
                 for t in detail.turns]
        for t, text, vec in zip(detail.turns, texts, emb.embed(texts), strict=True):
            payload.append({"id": t.id, "hash": embedding_hash(text, model), "embedding": vec})
            turn_ids.append(t.id)
    for start in range(0, len(payload), 500):
        mem.db.write("embeddings/set_turn_embeddings", rows=payload[start:start + 500], model=model, longTurnChars=LONG_TURN_CHARS)
    refresh_context_vectors(mem.db, turn_ids)
    refresh_session_docs(mem.db, sorted(w.sessions))
    for start in range(0, len(turn_ids), 500):
        mem.db.write("search/set_context_text", ids=turn_ids[start:start + 500], window=2, maxChars=2000,
                     longTurnChars=LONG_TURN_CHARS)
    spayload: list[dict[str, Any]] = []
    for s in w.sessions.values():
        sums = mem.summaries(s.id)
        texts = [summary_embedding_text(x.summary, x.key_findings, x.topics) for x in sums]
        for x, text, vec in zip(sums, texts, emb.embed(texts) if texts else [], strict=True):
            spayload.append({"id": x.id, "hash": embedding_hash(text, model), "embedding": vec})
    for start in range(0, len(spayload), 500):
        mem.db.write("embeddings/set_summary_embeddings", rows=spayload[start:start + 500], model=model)


class _Checker:
    """Checks returned items against the ground truth and counts everything."""

    def __init__(self, w: _World, rep: IsolationReport) -> None:
        self.w = w
        self.rep = rep
        self.owner = w.marker_owner()
        self.re = w.marker_re()

    # -- scopes ----------------------------------------------------------------------------------
    def in_scope(self, sid: str, kind: str, value: str | None) -> bool:
        s = self.w.sessions[sid]
        if kind == "everything":
            return True
        return {"session": s.id, "directory": s.cwd, "project": s.project}[kind] == value

    def visible_fact_keys(self, sid: str) -> set[str]:
        s = self.w.sessions[sid]
        return {"global", f"project:{s.project}", f"session:{s.id}"}

    # -- items -----------------------------------------------------------------------------------
    def item(self, where: str, item_id: str, kind: str, value: str | None, *, texts: Iterable[str] = (),
             fields: tuple[str | None, str | None, str | None] | None = None, what: str = "hit") -> None:
        """One returned turn or summary (``fields``: the session id, cwd and project it claims)."""
        self.rep.items[what] += 1
        sid = self.w.item_session.get(item_id)
        if sid is None:
            if kind != "everything":
                self.rep.leak(f"{where}: item {item_id} is not from this run's {kind} {value!r}")
            return
        if not self.in_scope(sid, kind, value):
            s = self.w.sessions[sid]
            self.rep.leak(f"{where}: item {item_id} of session {sid!r} ({s.cwd!r}) outside {kind} {value!r}")
        if fields is not None:
            s = self.w.sessions[sid]
            claimed = (fields[0], fields[1], fields[2])
            truth = (s.id, s.cwd, s.project)
            for c, t, name in zip(claimed, truth, ("session_id", "cwd", "project_path"), strict=True):
                if c is not None and c != t:
                    self.rep.leak(f"{where}: item {item_id} claims {name} {c!r}, truth {t!r}")
        self.text(where, kind, value, texts, facts_of=None)

    def text(self, where: str, kind: str, value: str | None, texts: Iterable[str], *,
             facts_of: str | None) -> None:
        """Every marker in ``texts`` must belong to the scope (``facts_of``: also allow the fact
        markers this session may see; without it fact markers are leaks)."""
        for t in texts:
            if not t:
                continue
            for m in set(self.re.findall(t)):
                own = self.owner.get(m)
                if own is None:
                    if not m.startswith(f"iso{self.w.run}"):
                        continue  # another run's marker: only possible in "everything"
                    self.rep.leak(f"{where}: unknown marker {m}")
                    continue
                k, who = own
                if k == "session":
                    if not self.in_scope(who, kind, value):
                        self.rep.leak(f"{where}: marker {m} of session {who!r} in {kind} {value!r}")
                elif facts_of is None:
                    self.rep.leak(f"{where}: fact marker {m} in a text that holds no facts")
                else:
                    vis = self.visible_fact_keys(facts_of)
                    key = {"fact-session": f"session:{who}", "fact-project": f"project:{who}",
                           "fact-global": "global"}[k]
                    if key not in vis:
                        self.rep.leak(f"{where}: fact marker {m} ({key}) shown to session {facts_of!r}")

    def fact(self, where: str, fact_id: str, scope_key: str, visible: set[str], content: str = "") -> None:
        self.rep.items["fact"] += 1
        truth = self.w.facts.get(fact_id)
        if truth is None:
            if scope_key not in visible or scope_key != "global":
                self.rep.leak(f"{where}: fact {fact_id} ({scope_key!r}) is not this run's and not global")
            return
        if truth != scope_key:
            self.rep.leak(f"{where}: fact {fact_id} claims scope {scope_key!r}, truth {truth!r}")
        if truth not in visible:
            self.rep.leak(f"{where}: fact {fact_id} of {truth!r} outside {sorted(visible)}")
        for m in set(self.re.findall(content)):
            own = self.owner.get(m)
            if own is None:
                continue
            k, who = own
            key = {"fact-session": f"session:{who}", "fact-project": f"project:{who}", "fact-global": "global",
                   "session": f"session:{who}"}[k]
            if key not in visible and k != "session":
                self.rep.leak(f"{where}: fact text marker {m} of {key!r} outside {sorted(visible)}")


def _scopes(w: _World) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = [("everything", None)]
    out += [("project", p) for p in sorted(set(w.dirs.values()))]
    out += [("directory", d) for d in sorted(w.dirs)]
    out += [("session", s) for s in sorted(w.sessions)]
    return out


def _foreign_marker(w: _World, kind: str, value: str | None) -> str | None:
    """A turn marker of a near-identical scope next to this one (never inside it)."""
    if kind == "everything" or value is None:
        return None
    if kind == "session":
        s = w.sessions[value]
        cands = [x for x in w.sessions.values() if x.cwd == s.cwd and x.id != s.id] or [
            x for x in w.sessions.values() if x.project == w.twins[s.project]]
    elif kind == "directory":
        project = w.dirs[value]
        cands = [x for x in w.sessions.values() if x.project == w.twins[project]]
    else:
        cands = [x for x in w.sessions.values() if x.project == w.twins[value]]
    cands = [x for x in cands if not _in(w, x, kind, value)]
    return cands[0].marker if cands else None


def _in(w: _World, s: _SessionInfo, kind: str, value: str | None) -> bool:
    return kind == "everything" or {"session": s.id, "directory": s.cwd, "project": s.project}[kind] == value


def _own_marker(w: _World, kind: str, value: str | None) -> str | None:
    if kind == "everything" or value is None:
        return None
    for s in w.sessions.values():
        if _in(w, s, kind, value):
            return s.marker
    return None


def _searchers(mem: Any, target: tuple[str, str, str]) -> tuple[dict[str, Any], list[Any]]:
    """name -> Searcher with the vector side forced to one strategy; plus extra databases to close."""
    from graphmem.db import Database
    from graphmem.db.client import ServerInfo
    from graphmem.retrieval import RetrievalConfig, Searcher

    dims = mem.embedding_dimensions
    out: dict[str, Any] = {
        "exact": Searcher(mem.db, mem.embedder, RetrievalConfig(exact_scan_max=10**9, exact_scan_max_filtered=10**9), dimensions=dims),
        "index": Searcher(mem.db, mem.embedder, RetrievalConfig(exact_scan_max=0, exact_scan_max_filtered=0), dimensions=dims),
    }
    extra: list[Any] = []
    info = mem.db.server_info()
    if info.vector_search_clause:
        # the 5.26 statements (vector index over-fetch + post-filter) run on 2026.x too: force them
        db526 = Database(*target)
        db526._info = ServerInfo(version="5.26.0", edition=info.edition)
        out["overfetch"] = Searcher(db526, mem.embedder, RetrievalConfig(exact_scan_max=0, exact_scan_max_filtered=0), dimensions=dims)
        extra.append(db526)
    return out, extra


def _check_searches(mem: Any, w: _World, cfg: IsolationConfig, ck: _Checker, rep: IsolationReport,
                    target: tuple[str, str, str], say: Callable[[str], None]) -> None:
    searchers, extra = _searchers(mem, target)
    vectors: dict[str, list[float]] = {}

    def vec(q: str) -> list[float]:
        if q not in vectors:
            vectors[q] = query_vector(mem.embedder, q)
        return vectors[q]

    try:
        scopes = _scopes(w)
        for i, (kind, value) in enumerate(scopes):
            scope = "everything" if value is None else f"{kind}:{value}"
            own = _own_marker(w, kind, value)
            foreign = _foreign_marker(w, kind, value)
            queries = [("common", COMMON_QUERY)]
            if foreign:
                queries.append(("foreign", f"{COMMON_QUERY} {foreign}"))
            if own:
                queries.append(("own", f"marker {own}"))
            level_sets = cfg.session_level_sets if kind == "session" else cfg.level_sets
            for qname, q in queries:
                for levels in level_sets:
                    runs: list[tuple[str, str]] = [("text", "index")]
                    runs += [(m, s) for m in ("hybrid", "semantic") for s in searchers]
                    for mode, strat in runs:
                        rep.checks[f"search {kind}"] += 1
                        try:
                            res = searchers[strat].search(q, scope=scope, levels=levels, k=20, mode=mode,
                                                          vector=None if mode == "text" else vec(q))
                        except GraphMemError as e:  # counted and reported precisely; the run goes on
                            rep.error(f"search[{mode},{strat},{levels},{qname}] {scope!r}: {e}")
                            continue
                        vs = res.strategy.get("vector", {}).get("strategy")
                        rep.strategies[f"{mode}/{strat}:{vs or 'text'}"] += 1
                        where = f"search[{mode},{strat},{levels},{qname}] {scope!r}"
                        for h in res.hits:
                            if h.level not in levels:
                                rep.leak(f"{where}: hit {h.id} has level {h.level} outside {levels}")
                            ck.item(where, h.id, kind, value, texts=[h.body(), " ".join(h.tools)],
                                    fields=(h.session_id, h.cwd, h.project_path))
                        if (qname == "own" and own and mode == "text" and 0 in levels
                                and not any(own in h.body() for h in res.hits)):
                                rep.recall_misses.append(f"{where}: own marker {own} not found")
            if i % 25 == 0:
                say(f"searches: {i + 1}/{len(scopes)} scopes, {sum(rep.checks.values())} calls")
    finally:
        for db in extra:
            db.close()


def _check_contexts(mem: Any, w: _World, cfg: IsolationConfig, ck: _Checker, rep: IsolationReport) -> None:
    from graphmem.retrieval import ContextConfig

    for s in w.sessions.values():
        foreign = _foreign_marker(w, "project", s.project) or ""
        for scope_kind in cfg.context_scopes:
            value = {"session": s.id, "directory": s.cwd, "project": s.project, "everything": None}[scope_kind]
            for msg in (COMMON_QUERY, f"{COMMON_QUERY} {foreign}"):
                block = mem.build_context(s.id, msg, config=ContextConfig(scope=scope_kind))  # type: ignore[arg-type]
                rep.checks["build_context"] += 1
                where = f"build_context[{scope_kind}] {s.id!r}"
                for t in block.recent_turns:
                    ck.item(where + " recent", t.id, "session", s.id, texts=[t.user_message, t.assistant_message],
                            what="context item")
                for h in [*block.relevant_turns, *block.relevant_summaries]:
                    ck.item(where, h.id, scope_kind, value, texts=[h.body()],
                            fields=(h.session_id, h.cwd, h.project_path), what="context item")
                for h in block.level1_summaries:
                    ck.item(where + " level1", h.id, "session", s.id, texts=[h.body()], what="context item")
                vis = ck.visible_fact_keys(s.id)
                for f in block.facts:
                    ck.fact(where, str(f["id"]), str(f["scope_key"]), vis, str(f.get("content", "")))
                ck.text(where + " text", scope_kind, value, [block.text], facts_of=s.id)


def _check_facts(mem: Any, w: _World, ck: _Checker, rep: IsolationReport) -> None:
    from graphmem.facts import list_facts as list_facts_fn
    from graphmem.facts.vectors import nearest_facts

    has_search = mem.db.server_info().vector_search_clause
    qvec = query_vector(mem.embedder, FACT_QUERY)
    for s in w.sessions.values():
        vis = ck.visible_fact_keys(s.id)
        keys = sorted(vis)
        foreign_p = w.project_markers.get(w.twins[s.project], "")
        for msg in (FACT_QUERY, f"{FACT_QUERY} {foreign_p}"):
            inj = mem.inject_facts(s.id, msg)
            rep.checks["inject_facts"] += 1
            for it in inj.items:
                ck.fact(f"inject_facts {s.id!r}", it.fact.id, it.fact.scope_key, vis, it.fact.content)
            ck.text(f"inject_facts text {s.id!r}", "session", s.id, [inj.text], facts_of=s.id)
        for f in mem.search_facts(f"{FACT_QUERY} {foreign_p}", scopes=keys, limit=20):
            ck.fact(f"search_facts {s.id!r}", f.id, f.scope_key, vis, f.content)
        rep.checks["search_facts"] += 1
        paths: list[tuple[str, dict[str, Any]]] = [("exact", {"scope_count": 0}),
                                                   ("index", {"scope_count": None, "search": False})]
        if has_search:
            paths.append(("index-filtered", {"scope_count": None, "search": True}))
        for name, kw in paths:
            for row in nearest_facts(mem.db, qvec, keys, k=20, **kw):
                ck.fact(f"nearest_facts[{name}] {s.id!r}", row["id"], row["scopeKey"], vis, row["content"])
            rep.checks[f"nearest_facts {name}"] += 1
        for f in mem.facts_about("iso-shared", scopes=keys, limit=200):
            ck.fact(f"facts_about {s.id!r}", f.id, f.scope_key, vis, f.content)
        rep.checks["facts_about"] += 1
        for f in list_facts_fn(mem.db, scopes=keys, order="importance", limit=200):
            ck.fact(f"list_facts {s.id!r}", f.id, f.scope_key, vis, f.content)
        rep.checks["list_facts"] += 1
        if foreign_p:
            dry = mem.forget(foreign_p, scopes=keys, dry_run=True)
            for f in dry.removed:
                ck.fact(f"forget(dry-run) {s.id!r}", f.id, f.scope_key, vis, f.content)
            rep.checks["forget dry-run"] += 1


# -- MCP -------------------------------------------------------------------------------------------
def _payload(result: Any) -> dict[str, Any]:
    if result.is_error:
        raise RuntimeError(f"MCP tool error: {result}")
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if structured:
        return dict(structured)
    return dict(json.loads(result.content[0].text))


def _check_mcp(w: _World, cfg: IsolationConfig, ck: _Checker, rep: IsolationReport, target: tuple[str, str, str],
               home: Path) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from graphmem.paths import find_project_root

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update({"GRAPHMEM_NEO4J_URI": target[0], "GRAPHMEM_NEO4J_USER": target[1],
                "GRAPHMEM_NEO4J_PASSWORD": target[2], "GRAPHMEM_HOME": str(home), "GRAPHMEM_EMBEDDER": "local"})
    params = StdioServerParameters(
        command=sys.executable, args=["-c", "import sys; from graphmem.cli import main; sys.exit(main())", "mcp"],
        env=env, cwd=str(w.base))
    dirs = sorted(w.dirs)[: cfg.mcp_dirs] if cfg.mcp_dirs else sorted(w.dirs)
    sessions = sorted(w.sessions.values(), key=lambda s: s.n)
    sessions = sessions[: cfg.mcp_dirs] if cfg.mcp_dirs else sessions

    async def drive() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
                rep.checks[f"mcp {name}"] += 1
                return _payload(await session.call_tool(name, args))

            def hits(where: str, out: dict[str, Any], kind: str, value: str | None) -> None:
                for h in out["hits"]:
                    texts = [str(h.get(k) or "") for k in ("user_message", "assistant_message", "text")]
                    ck.item(where, h["id"], kind, value, texts=texts, fields=(h.get("session_id"), h.get("cwd"), None),
                            what="mcp item")

            for d in dirs:
                project = find_project_root(d)
                if project != w.dirs[d]:
                    rep.leak(f"mcp: project of {d!r} is {project!r}, expected {w.dirs[d]!r}")
                foreign = _foreign_marker(w, "directory", d) or ""
                for q in (COMMON_QUERY, f"{COMMON_QUERY} {foreign}"):
                    for mode in ("hybrid", "semantic", "text"):
                        hits(f"mcp memory_search[directory,{mode}] {d!r}", await call(
                            "memory_search", {"query": q, "scope": "directory", "cwd": d, "mode": mode, "k": 50}),
                            "directory", d)
                        hits(f"mcp memory_search[project,{mode}] {d!r}", await call(
                            "memory_search", {"query": q, "scope": "project", "cwd": d, "mode": mode, "k": 50}),
                            "project", project)
                    hits(f"mcp memory_search[directory:] {d!r}", await call(
                        "memory_search", {"query": q, "scope": f"directory:{d}", "k": 50}), "directory", d)
                    hits(f"mcp memory_search[project:] {d!r}", await call(
                        "memory_search", {"query": q, "scope": f"project:{project}", "k": 50, "levels": [1, 2, 3]}),
                        "project", project)
                for proj_flag in (False, True):
                    out = await call("recent_sessions", {"cwd": d, "project": proj_flag, "limit": 100})
                    for s in out["sessions"]:
                        rep.items["mcp session"] += 1
                        truth = w.sessions.get(s["id"])
                        if truth is None or (truth.project != project if proj_flag else truth.cwd != d):
                            rep.leak(f"mcp recent_sessions[project={proj_flag}] {d!r}: session {s['id']!r}")
                        ck.text(f"mcp recent_sessions {d!r}", "project" if proj_flag else "directory",
                                project if proj_flag else d, [str(s.get("last_message") or "")], facts_of=None)
                out = await call("memory_context", {"message": COMMON_QUERY, "cwd": d})
                if out.get("session_id"):
                    sid = out["session_id"]
                    if sid not in w.sessions or w.sessions[sid].project != project:
                        rep.leak(f"mcp memory_context(cwd={d!r}) chose session {sid!r} of another project")
                    else:
                        rep.items["mcp context"] += 1
                        ck.text(f"mcp memory_context(cwd) {d!r}", "project", project, [out["text"]], facts_of=sid)
            for s in sessions:
                foreign = _foreign_marker(w, "session", s.id) or ""
                for mode in ("hybrid", "text"):
                    hits(f"mcp memory_search[session:] {s.id!r}", await call(
                        "memory_search", {"query": f"{COMMON_QUERY} {foreign}", "scope": f"session:{s.id}",
                                          "mode": mode, "k": 50}), "session", s.id)
                out = await call("memory_context", {"message": f"{COMMON_QUERY} {foreign}", "session_id": s.id})
                rep.items["mcp context"] += 1
                ck.text(f"mcp memory_context {s.id!r}", "project", s.project, [out["text"]], facts_of=s.id)
                vis = ck.visible_fact_keys(s.id)
                fp = w.project_markers.get(w.twins[s.project], "")
                out = await call("memory_search_facts", {"query": f"{FACT_QUERY} {fp}", "limit": 50,
                                                         "scope": f"session:{s.id}"})
                for f in out["facts"]:
                    ck.fact(f"mcp memory_search_facts {s.id!r}", f["id"], f["scope_key"], vis, f["content"])
            # writing tools last: a near-identical fact stored in every project must stay in it, and
            # forgetting a neighbour project's marker from here must remove nothing outside this scope
            for p in sorted(set(w.dirs.values()))[: cfg.mcp_dirs or None]:
                out = await call("memory_store_fact", {
                    "content": f"Decision: the release train for this project leaves on Tuesdays "
                               f"(marker {w.project_markers[p]})", "scope": f"project:{p}",
                    "type": "decision"})
                rep.items["mcp fact"] += 1
                w.facts[out["fact"]["id"]] = out["fact"]["scope_key"]
                if out["action"] != "inserted" or out["fact"]["scope_key"] != f"project:{p}":
                    rep.leak(f"mcp memory_store_fact in {p!r}: {out['action']} {out['fact']['scope_key']!r}")
            for s in sessions[: max(1, len(sessions) // 4)]:
                vis = ck.visible_fact_keys(s.id)
                fp = w.project_markers.get(w.twins[s.project], "")
                out = await call("memory_forget", {"topic_or_id": fp, "scope": f"session:{s.id}"})
                for f in out["removed"]:
                    ck.fact(f"mcp memory_forget {s.id!r}", f["id"], f["scope_key"], vis, f["content"])

    anyio.run(drive)


# -- the run ---------------------------------------------------------------------------------------
def run_isolation(target: tuple[str, str, str], cfg: IsolationConfig, *, command: str = "",
                  out_dir: Path | None = None, base_dir: Path | None = None, keep: bool = False,
                  log_fn: Callable[[str], None] | None = None) -> tuple[IsolationReport, BenchResult]:
    """Build the adversarial data on ``target``, check every result, clean up; return the report."""
    from graphmem.db import Database
    from graphmem.embedding import LocalEmbedder
    from graphmem.facts import delete_facts_under_path as delete_project_facts
    from graphmem.facts.store import delete_facts
    from graphmem.memory import GraphMemory

    say = log_fn or (lambda _m: None)
    run = uuid.uuid4().hex[:8]
    parent = Path(tempfile.mkdtemp(prefix="graphmem-iso-", dir=base_dir))
    base = Path(os.path.realpath(parent)) / run
    base.mkdir()
    rep = IsolationReport()
    watch = _DropWatch()
    logging.getLogger("graphmem.retrieval").addHandler(watch)
    db = Database(*target)
    mem = GraphMemory(db, embedder=LocalEmbedder())
    mem.ensure_schema()
    version = db.server_info().version
    result = BenchResult("reliability-isolation", command, machine_info(version))
    w: _World | None = None
    load0 = os.getloadavg()
    t_all = time.perf_counter()
    try:
        t0 = time.perf_counter()
        w = _build_world(mem, cfg, base, run, say)
        rep.timings_s["build"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        _summarize(mem, w, cfg)
        say(f"summaries by level: {dict(w.summary_levels)}")
        mem.await_text_index()
        rep.timings_s["summarize_embed"] = round(time.perf_counter() - t0, 1)
        rep.data = {
            "projects": len(set(w.dirs.values())), "directories": len(w.dirs), "sessions": len(w.sessions),
            "turns": sum(len(s.turn_ids) for s in w.sessions.values()),
            "summaries_by_level": {str(k): v for k, v in sorted(w.summary_levels.items())},
            "facts": len(w.facts), "fact_remember_actions": dict(w.fact_actions),
        }
        say(f"data: {rep.data}")
        world = w
        ck = _Checker(world, rep)
        steps: list[tuple[str, Callable[[], None]]] = [
            ("searches", lambda: _check_searches(mem, world, cfg, ck, rep, target, say)),
            ("contexts", lambda: _check_contexts(mem, world, cfg, ck, rep)),
            ("facts", lambda: _check_facts(mem, world, ck, rep)),
        ]
        for name, fn in steps:
            t0 = time.perf_counter()
            fn()
            rep.timings_s[name] = round(time.perf_counter() - t0, 1)
            say(f"{name} done in {rep.timings_s[name]} s: {sum(rep.checks.values())} calls, "
                f"{sum(rep.items.values())} items, {len(rep.leaks)} leaks")
        if cfg.mcp:
            t0 = time.perf_counter()
            _check_mcp(w, cfg, ck, rep, target, parent / "mcp-home")
            rep.timings_s["mcp"] = round(time.perf_counter() - t0, 1)
            say(f"mcp done in {rep.timings_s['mcp']} s")
        rep.dropped_by_final_check = list(watch.records)
        rep.timings_s["total"] = round(time.perf_counter() - t_all, 1)
        _fill_result(result, rep, cfg, version, load0)
        if out_dir is not None:
            write_results(result, out_dir)
        return rep, result
    finally:
        logging.getLogger("graphmem.retrieval").removeHandler(watch)
        if not keep and w is not None:
            for sid in w.sessions:
                try:
                    mem.delete_session(sid)
                except Exception as e:  # the clean-up goes on
                    say(f"cleanup of {sid!r} failed: {e}")
            delete_facts(db, [fid for fid, key in w.facts.items() if key == "global" or key.startswith("session:")])
            delete_project_facts(db, str(w.base))
        db.close()
        if not keep:
            shutil.rmtree(parent, ignore_errors=True)


def _fill_result(result: BenchResult, rep: IsolationReport, cfg: IsolationConfig, version: str,
                 load0: tuple[float, float, float]) -> None:
    d = rep.to_dict()
    f = result.figures
    f["leaks"] = d["leaks"]
    f["errors"] = d["errors"]
    f["dropped_by_final_check"] = d["dropped_by_final_check"]
    f["recall_misses"] = d["recall_misses"]
    f["calls_checked_total"] = d["checks_total"]
    f["items_verified_total"] = d["items_total"]
    f["calls_by_kind"] = d["checks"]
    f["items_by_kind"] = d["items"]
    f["data"] = d["data"]
    f["vector_strategies_seen"] = d["strategies"]
    f["timings_s"] = d["timings_s"]
    f["config"] = {k: (list(map(list, v)) if k.endswith("level_sets") else v) for k, v in asdict(cfg).items()}
    load1 = os.getloadavg()
    f["loadavg"] = {"start_1m": round(load0[0], 2), "end_1m": round(load1[0], 2)}
    if d["leak_examples"]:
        f["leak_examples"] = d["leak_examples"]
    if d["error_examples"]:
        f["error_examples"] = d["error_examples"]
    if d["recall_miss_examples"]:
        f["recall_miss_examples"] = d["recall_miss_examples"]
    if d["dropped_examples"]:
        f["dropped_examples"] = d["dropped_examples"]
    result.notes += [
        f"Neo4j {version}. Adversarial layout: {', '.join(repr(p) for p, _ in _ADVERSARIAL_PROJECTS)} plus "
        f"{cfg.extra_projects} plain projects, each with sub-directories; sessions created through symlinks and "
        "trailing slashes, session ids differing only by punctuation or case; near-identical turns, summaries "
        "(levels 1-3 by the extractive worker) and facts (global, project, session) differing by one marker.",
        "Every returned item is checked against the ground truth (ids acknowledged by store_turn / remember, "
        "summary trees), its claimed session/cwd/project, and every marker in every returned text; nothing is "
        "sampled. Queries per scope: the common words, the marker of a near-identical neighbour scope, and the "
        "scope's own marker (positive control: text mode must find it).",
        "Vector strategies forced: exact scan (exact_scan_max huge), vector index (exact_scan_max 0: in-index "
        "filtering on 2026.x, over-fetch + post-filter on 5.26) and, on 2026.x, the 5.26 over-fetch statements "
        "too (server feature detection overridden). Fact vector search: exact, index (post-filter) and, on 2026.x, "
        "index-filtered.",
        f"Result: {d['leaks']} leaks, {d['errors']} calls that raised, {d['dropped_by_final_check']} hits dropped by the searcher's final scope "
        f"check, {d['recall_misses']} own-marker recall misses, over {d['checks_total']} calls and "
        f"{d['items_total']} returned items.",
        f"Load average (1 min) {load0[0]:.2f} at start, {load1[0]:.2f} at end ({os.cpu_count()} cores, shared).",
    ]


# -- CLI --------------------------------------------------------------------------------------------
def register(verbs: Any) -> None:
    p = verbs.add_parser("isolation", help="scope isolation under adversarial data, every result checked")
    p.add_argument("--extra-projects", type=int, default=IsolationConfig.extra_projects)
    p.add_argument("--sessions-per-dir", type=int, default=IsolationConfig.sessions_per_dir)
    p.add_argument("--turns", type=int, default=IsolationConfig.turns_per_session)
    p.add_argument("--no-mcp", action="store_true")
    p.add_argument("--keep", action="store_true", help="keep the data (and print where)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_cli)


def _cli(args: argparse.Namespace) -> int:
    from graphmem.config import Settings

    settings = Settings.load()
    if settings.managed:
        from graphmem.neo4j_local import ManagedServer

        server = ManagedServer(settings.home, settings.neo4j_version, java_home=settings.java_home,
                               heap=settings.heap, pagecache=settings.pagecache, bolt_port=settings.bolt_port,
                               http_port=settings.http_port, start_timeout=settings.start_timeout)
        st = server.start()
        target = (st.uri, "neo4j", server.password())
    else:
        pw = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        target = (str(settings.neo4j_uri), settings.neo4j_user, pw)
    cfg = IsolationConfig(extra_projects=args.extra_projects, sessions_per_dir=args.sessions_per_dir,
                          turns_per_session=args.turns, mcp=not args.no_mcp)
    command = "graphmem " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    rep, result = run_isolation(target, cfg, command=command, out_dir=args.out, keep=args.keep,
                                log_fn=lambda m: print(m, file=sys.stderr, flush=True))
    print(result.markdown())
    return 0 if rep.ok else 1
