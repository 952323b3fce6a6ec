"""Bulk import throughput of a large generated transcript corpus (``graphmem bench import``).

The corpus: Claude Code JSONL transcripts (about 60% of the sessions) and Codex CLI rollouts (40%),
sessions of 10 to 80 turns, each turn a prompt, 0 to 4 tool calls (file reads of 1-6 KB, test runs,
greps, edits/patches; some failing) with intermediate assistant text, and a final answer. The texts
are built from coding-session templates filled with random identifiers, paths and numbers, so no two
turns are identical (the embedder's cache cannot help). Files are written to a temporary folder.

The import is what ``graphmem import`` does: each file parsed by the real importer
(:func:`graphmem.integrations.parse_transcript`, redaction included), its session created and its
turns written by :meth:`GraphMemory.import_turns` (UNWIND batches of 500). It runs twice on the same
corpus, in alternating order per file (so both see the same machine load): **without embeddings**
and **with embeddings** (the same import, then the imported sessions' turns embedded with the local
embedder and their vectors written, as the worker's embedding pass does — scoped to the imported
sessions so a shared server's other data is untouched). Reported: turns/s, tool calls/s, MB/s of
transcript, the split parse / write / embed, and the peak RSS of the Python process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.embedding import LONG_TURN_CHARS
from graphmem.memory import GraphMemory

from ..statements import dev_db
from .common import machine_info, peak_rss_mb, read_part_results, results_source_note
from .parts import Headline, PartResult

__all__ = ["Corpus", "generate_corpus", "part_from_results", "register", "run_import", "run_part"]

Log = Callable[[str], None]

_VERBS = ["fix", "refactor", "explain", "speed up", "add tests for", "document", "rename", "debug", "review",
          "simplify", "port", "profile", "harden", "split", "migrate"]
_THINGS = ["the invoice total", "the session cookie", "the retry decorator", "the CSV exporter", "the cache layer",
           "the date parser", "the auth middleware", "the websocket handler", "the migration script",
           "the rate limiter", "the PDF renderer", "the search endpoint", "the billing cron job", "the settings loader",
           "the feature flag client", "the upload handler", "the GraphQL resolver", "the payment webhook"]
_WHY = ["it fails on empty input", "CI is red since yesterday", "users report a 500 on Safari",
        "the p99 latency doubled", "it leaks file handles", "the rounding is off by one cent",
        "it breaks with non-ASCII names", "the tests are flaky", "the logs are unreadable",
        "it times out under load", "it ignores the timezone", "it double-charges on retry"]
_DIRS = ["src/app", "src/billing", "src/api", "lib/core", "services/payments", "pkg/util", "app/models",
         "internal/cache", "web/handlers", "tools/scripts"]
_ANSWER = ["I traced it to {f}:{n}: {x} was read before the lock; I moved it inside and added {t}.",
           "The root cause is in {f}: {x} assumed a list but gets None on the first call. Fixed, and {t} covers it.",
           "{x} now uses a bounded LRU (maxsize {n}); {t} checks eviction. Benchmarks went from {n} ms to {m} ms.",
           "Renamed {x} across {n} files and kept a deprecated alias in {f}; {t} passes.",
           "The flaky part was a real race in {f} around {x}; it now awaits the task. {t} ran {n} times green.",
           "{x} returned naive datetimes; everything is UTC-aware now ({f}), {t} added for DST edges."]


@dataclass
class Corpus:
    """A generated transcript folder and what it holds."""

    root: Path
    files: list[Path] = field(default_factory=list)
    bytes: int = 0
    turns: int = 0
    tool_calls: int = 0
    sessions: int = 0
    by_agent: dict[str, int] = field(default_factory=dict)


class _Text:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def ident(self) -> str:
        a = self.rng.choice(["get", "load", "parse", "compute", "render", "sync", "apply", "check", "build"])
        b = self.rng.choice(["user", "invoice", "cart", "token", "row", "event", "order", "quota", "file", "job"])
        return f"{a}_{b}_{self.rng.randrange(1000)}"

    def path(self) -> str:
        return f"{self.rng.choice(_DIRS)}/{self.ident()}.py"

    def prompt(self) -> str:
        r = self.rng
        text = (f"Can you {r.choice(_VERBS)} {r.choice(_THINGS)} in {self.path()}? {r.choice(_WHY).capitalize()}, "
                f"see {self.ident()}() around line {r.randrange(10, 900)}.")
        if r.random() < 0.3:
            text += f"\n\n```python\ndef {self.ident()}(x):\n    return x * {r.randrange(2, 99)}\n```"
        return text

    def answer(self) -> str:
        r = self.rng
        return r.choice(_ANSWER).format(f=self.path(), n=r.randrange(2, 400), m=r.randrange(1, 90), x=self.ident(),
                                        t=f"tests/test_{self.ident()}.py")

    def file_body(self) -> str:
        lines = []
        for _ in range(self.rng.randrange(30, 180)):
            lines.append(f"    {self.ident()} = {self.ident()}(payload[{self.rng.randrange(100)!r}])  # {self.ident()}")
        return f"def {self.ident()}(payload):\n" + "\n".join(lines)

    def test_output(self, fail: bool) -> str:
        n = self.rng.randrange(5, 300)
        if fail:
            return (f"F....\n___ test_{self.ident()} ___\nAssertionError: expected {self.rng.randrange(999)} got "
                    f"{self.rng.randrange(999)}\n1 failed, {n} passed in {self.rng.uniform(0.2, 40):.2f}s")
        return f"{'.' * min(n, 80)}\n{n} passed in {self.rng.uniform(0.2, 40):.2f}s"

    def grep(self) -> str:
        return "\n".join(f"{self.path()}:{self.rng.randrange(1, 900)}:    {self.ident()}()"
                         for _ in range(self.rng.randrange(1, 12)))


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _tool(tx: _Text, rng: random.Random) -> tuple[str, dict[str, Any], str, bool]:
    kind = rng.choice(["Read", "Read", "Bash", "Grep", "Edit"])
    if kind == "Read":
        return kind, {"file_path": tx.path()}, tx.file_body(), True
    if kind == "Bash":
        fail = rng.random() < 0.2
        return kind, {"command": f"pytest -q tests/test_{tx.ident()}.py"}, tx.test_output(fail), not fail
    if kind == "Grep":
        return kind, {"pattern": f"def {tx.ident()}", "path": rng.choice(_DIRS)}, tx.grep(), True
    return kind, {"file_path": tx.path(), "old_string": tx.ident(), "new_string": tx.ident()}, "ok", True


def _claude_session(path: Path, rng: random.Random, tx: _Text, n_turns: int, cwd: str, start: datetime) -> int:
    sid = str(uuid.uuid4())
    t = start
    parent: str | None = None
    lines: list[str] = []
    tools = 0

    def rec(rtype: str, **extra: Any) -> dict[str, Any]:
        nonlocal t, parent
        t += timedelta(milliseconds=rng.randrange(200, 4000))
        u = str(uuid.uuid4())
        r = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
             "version": "2.0.14", "gitBranch": "main", "type": rtype, "uuid": u, "timestamp": _iso(t), **extra}
        parent = u
        lines.append(json.dumps(r, ensure_ascii=False))
        return r

    for _ in range(n_turns):
        rec("user", message={"role": "user", "content": tx.prompt()})
        for _k in range(rng.choice([0, 1, 1, 2, 3, 4])):
            name, args, result, ok = _tool(tx, rng)
            tid = f"toolu_{uuid.uuid4().hex[:24]}"
            content: list[dict[str, Any]] = []
            if rng.random() < 0.5:
                content.append({"type": "text", "text": f"Let me check {tx.ident()} first."})
            content.append({"type": "tool_use", "id": tid, "name": name, "input": args})
            rec("assistant", message={"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                                      "model": "claude-sonnet-4-5", "content": content})
            rec("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                              "content": result, "is_error": not ok}]})
            tools += 1
        rec("assistant", message={"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                                  "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": tx.answer()}]})
        rec("system", subtype="turn_duration", durationMs=rng.randrange(800, 90000), isMeta=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tools


def _codex_session(path: Path, rng: random.Random, tx: _Text, n_turns: int, cwd: str, start: datetime) -> int:
    t = start
    lines: list[str] = []
    tools = 0

    def emit(rtype: str, payload: dict[str, Any], ms: int | None = None) -> None:
        nonlocal t
        t += timedelta(milliseconds=ms if ms is not None else rng.randrange(100, 3000))
        lines.append(json.dumps({"timestamp": _iso(t), "type": rtype, "payload": payload}, ensure_ascii=False))

    emit("session_meta", {"id": str(uuid.uuid4()), "timestamp": _iso(start), "cwd": cwd, "originator": "codex_cli_rs",
                          "cli_version": "0.46.0", "instructions": None, "source": "cli", "model_provider": "openai",
                          "git": {"commit_hash": uuid.uuid4().hex, "branch": "main"}}, ms=0)
    for i in range(n_turns):
        turn_id = f"turn-{i}"
        emit("turn_context", {"cwd": cwd, "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write"},
                              "model": "gpt-5-codex", "effort": "medium", "summary": "auto", "turn_id": turn_id})
        emit("event_msg", {"type": "task_started", "turn_id": turn_id, "model_context_window": 272000})
        prompt = tx.prompt()
        emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        emit("event_msg", {"type": "user_message", "message": prompt, "images": []}, ms=2)
        for _k in range(rng.choice([0, 1, 1, 2, 3, 4])):
            _name, args, result, ok = _tool(tx, rng)
            cid = f"call_{rng.getrandbits(96):024x}"
            command = args.get("command") or f"cat {args.get('file_path') or args.get('path')}"
            emit("response_item", {"type": "function_call", "name": "shell", "call_id": cid,
                                   "arguments": json.dumps({"command": ["bash", "-lc", command], "workdir": cwd})})
            secs = round(rng.uniform(0.01, 9.0), 3)
            code = 0 if ok else 1
            emit("event_msg", {"type": "exec_command_end", "call_id": cid, "stdout": result, "stderr": "",
                               "aggregated_output": result, "exit_code": code,
                               "duration": {"secs": int(secs), "nanos": round((secs - int(secs)) * 1e9)},
                               "formatted_output": result}, ms=int(secs * 1000))
            emit("response_item", {"type": "function_call_output", "call_id": cid,
                                   "output": json.dumps({"output": result,
                                                         "metadata": {"exit_code": code, "duration_seconds": secs}})},
                 ms=3)
            tools += 1
        answer = tx.answer()
        emit("response_item", {"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": answer}]})
        emit("event_msg", {"type": "agent_message", "message": answer}, ms=1)
        emit("event_msg", {"type": "task_complete", "turn_id": turn_id, "last_agent_message": answer}, ms=2)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tools


def generate_corpus(root: Path, turns: int, *, seed: int = 3, namespace: str = "/graphmem-bench/import") -> Corpus:
    """Write transcripts holding ``turns`` turns in total under ``root`` (see the module docstring).

    Each session's directory is under ``namespace`` (so a run's sessions can be found and deleted)."""
    rng = random.Random(seed)
    tx = _Text(rng)
    corpus = Corpus(root)
    root.mkdir(parents=True, exist_ok=True)
    start = datetime(2025, 3, 1, 9, tzinfo=UTC)
    while corpus.turns < turns:
        n = min(turns - corpus.turns, rng.randrange(10, 81))
        cwd = f"{namespace}/proj{corpus.sessions // 8}/repo"
        agent = "claude-code" if rng.random() < 0.6 else "codex"
        if agent == "claude-code":
            path = root / f"claude-{corpus.sessions:05d}.jsonl"
            corpus.tool_calls += _claude_session(path, rng, tx, n, cwd, start)
        else:
            path = root / f"rollout-{corpus.sessions:05d}.jsonl"
            corpus.tool_calls += _codex_session(path, rng, tx, n, cwd, start)
        start += timedelta(hours=3)
        corpus.files.append(path)
        corpus.bytes += path.stat().st_size
        corpus.turns += n
        corpus.sessions += 1
        corpus.by_agent[agent] = corpus.by_agent.get(agent, 0) + 1
    return corpus


# ----------------------------------------------------------------------------------------------
# the import


@dataclass
class _Side:
    files: int = 0
    bytes: int = 0
    turns: int = 0
    tool_calls: int = 0
    parse_s: float = 0.0
    write_s: float = 0.0
    embed_s: float = 0.0
    embedded: int = 0
    session_ids: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        total = self.parse_s + self.write_s + self.embed_s
        return {
            "files": self.files, "transcript_mb": round(self.bytes / 1e6, 2), "turns": self.turns,
            "tool_calls": self.tool_calls, "turns_embedded": self.embedded,
            "parse_seconds": round(self.parse_s, 2), "write_seconds": round(self.write_s, 2),
            "embed_seconds": round(self.embed_s, 2), "total_seconds": round(total, 2),
            "turns_per_s": round(self.turns / total, 1) if total else None,
            "tool_calls_per_s": round(self.tool_calls / total, 1) if total else None,
            "mb_per_s": round(self.bytes / 1e6 / total, 3) if total else None,
        }


def _embed_sessions(mem: GraphMemory, session_ids: Sequence[str], batch: int = 128) -> int:
    """Embed the pending turns of these sessions (only these) and store the vectors."""
    from graphmem.embedding import EMBED_TEXT_MAX_CHARS, embedding_hash, long_reply_head, turn_embedding_text

    assert mem.embedder is not None
    done = 0
    while True:
        rows = dev_db(mem.db).read("bench/pending_turns_of_sessions", sessionIds=list(session_ids), limit=batch,
                           maxChars=EMBED_TEXT_MAX_CHARS)
        if not rows:
            return done
        texts = [turn_embedding_text(r["userMessage"] or "", r["assistantMessage"] or "", r["tools"],
                                     reply_head_chars=long_reply_head(mem.embedder)) for r in rows]
        vectors = mem.embedder.embed(texts)
        payload = [{"id": r["id"], "hash": embedding_hash(x, mem.embedder.model), "embedding": v}
                   for r, x, v in zip(rows, texts, vectors, strict=True)]
        mem.db.write("embeddings/set_turn_embeddings", rows=payload, model=mem.embedder.model, longTurnChars=LONG_TURN_CHARS)
        done += len(rows)


def _import_file(mem: GraphMemory, path: Path, side: _Side, *, embed: bool, session_suffix: str) -> None:
    from graphmem.integrations import parse_transcript

    t0 = time.perf_counter()
    sessions = parse_transcript(path)
    t1 = time.perf_counter()
    side.parse_s += t1 - t0
    ids = []
    for s in sessions:
        if not s.turns:
            continue
        sid = f"{s.session_id}{session_suffix}"  # each side imports the same corpus under its own ids
        assert s.cwd is not None
        mem.create_session(s.cwd, agent=s.agent, session_id=sid, title=s.title, started_at=s.started_at)
        r = mem.import_turns(sid, s.turns)
        side.turns += r.created
        side.tool_calls += sum(len(t.tool_calls) for t in s.turns)
        ids.append(sid)
    t2 = time.perf_counter()
    side.write_s += t2 - t1
    if embed and ids:
        side.embedded += _embed_sessions(mem, ids)
        side.embed_s += time.perf_counter() - t2
    side.files += 1
    side.bytes += path.stat().st_size
    side.session_ids += ids


def run_import(mem: GraphMemory, turns: int, *, work_dir: Path | None = None, log: Log = print) -> dict[str, Any]:
    """Generate a corpus of ``turns`` turns and import it twice (without / with embeddings, file by
    file in alternating order); returns the figures. Everything imported is deleted afterwards."""
    if mem.embedder is None:
        from graphmem.errors import ConfigError

        raise ConfigError("the import benchmark needs an embedder (GRAPHMEM_EMBEDDER=local)")
    mem.init_schema()
    ns = f"/graphmem-bench/import-{uuid.uuid4().hex[:12]}"
    own = work_dir is None
    root = Path(tempfile.mkdtemp(prefix="graphmem-import-bench-")) if own else work_dir
    assert root is not None
    figures: dict[str, Any] = {"machine": machine_info(mem.db.server_info().version)}
    try:
        t0 = time.perf_counter()
        corpus = generate_corpus(root, turns, namespace=ns)
        figures["corpus"] = {"turns": corpus.turns, "tool_calls": corpus.tool_calls, "sessions": corpus.sessions,
                             "files": len(corpus.files), "mb": round(corpus.bytes / 1e6, 2), "by_agent": corpus.by_agent,
                             "generate_seconds": round(time.perf_counter() - t0, 2)}
        log(f"corpus: {corpus.turns:,} turns, {corpus.tool_calls:,} tool calls, {len(corpus.files)} files, "
            f"{corpus.bytes / 1e6:,.1f} MB")
        mem.embedder.embed(["warm-up"])  # load the model outside the timings
        plain, embedded = _Side(), _Side()
        last = time.perf_counter()
        for i, path in enumerate(corpus.files):
            order = [(plain, False, "-a"), (embedded, True, "-b")]
            if i % 2:
                order.reverse()
            for side, embed, suffix in order:
                _import_file(mem, path, side, embed=embed, session_suffix=suffix)
            if time.perf_counter() - last > 30:
                last = time.perf_counter()
                log(f"  {i + 1}/{len(corpus.files)} files imported (both ways)")
        figures["without_embeddings"] = plain.figures()
        figures["with_embeddings"] = embedded.figures()
        figures["embedder"] = mem.embedder.model
        figures["peak_rss_mb"] = peak_rss_mb()
        figures["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        w, e = figures["without_embeddings"], figures["with_embeddings"]
        if w["turns_per_s"] and e["turns_per_s"]:
            figures["with_over_without_turns_per_s"] = round(e["turns_per_s"] / w["turns_per_s"], 3)
        log(f"without embeddings: {w['turns_per_s']} turns/s, {w['mb_per_s']} MB/s; with: {e['turns_per_s']} turns/s, "
            f"{e['mb_per_s']} MB/s; peak RSS {figures['peak_rss_mb']} MiB")
    finally:
        t0 = time.perf_counter()
        from .store import cleanup_bench_namespace

        cleanup_bench_namespace(mem, ns)
        log(f"cleaned up in {time.perf_counter() - t0:.0f} s")
        if own:
            shutil.rmtree(root, ignore_errors=True)
    return figures


# ----------------------------------------------------------------------------------------------
# report


def import_markdown(f: dict[str, Any]) -> str:
    c = f["corpus"]
    lines = [
        f"Corpus: {c['turns']:,} turns with {c['tool_calls']:,} tool calls in {c['sessions']} sessions "
        f"({', '.join(f'{v} {k}' for k, v in sorted(c['by_agent'].items()))}), {c['mb']} MB of JSONL.",
        "",
        "| import | turns/s | tool calls/s | MB/s of transcript | parse s | write s | embed s | total s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label in (("without_embeddings", "without embeddings"),
                       ("with_embeddings", f"with embeddings ({f.get('embedder')})")):
        s = f[key]
        lines.append(f"| {label} | {s['turns_per_s']} | {s['tool_calls_per_s']} | {s['mb_per_s']} | "
                     f"{s['parse_seconds']} | {s['write_seconds']} | {s['embed_seconds']} | {s['total_seconds']} |")
    lines += ["", f"- Peak RSS of the Python process: {f['peak_rss_mb']} MiB (corpus generation, parsing, the "
                  "embedding model)."]
    return "\n".join(lines) + "\n"


def _notes(f: dict[str, Any]) -> list[str]:
    return [
        "Generated corpus (not real user data): Claude Code JSONL and Codex rollouts, 10-80 turns per session, "
        "0-4 tool calls per turn (file reads of 1-6 KB, test runs, greps, edits; ~20% of test runs fail), texts "
        "from coding templates with random identifiers so that no two turns are equal.",
        "The import is `graphmem import`'s path: parse_transcript (real importer, secret redaction included), "
        "create_session, import_turns (UNWIND batches of 500). Both sides import the same files under their own "
        "session ids, file by file in alternating order, so they see the same machine load. 'With embeddings' "
        "adds embedding the imported sessions' turns with the local embedder (1 thread) in batches of 128 and "
        "writing the vectors (what the worker's embedding pass does, scoped to those sessions).",
        f"Load average (1/5/15 min) at the end: {f.get('loadavg')} on {os.cpu_count()} cores (shared machine).",
    ]


def _plot(figures: dict[str, Any], out_dir: Path) -> Path:
    """Seconds per 1,000 turns, split parse / write / embed, for both sides."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    sides = [("without_embeddings", "without embeddings"), ("with_embeddings", "with embeddings")]
    fig, ax = plt.subplots(figsize=(8, 3.2), dpi=110)
    for row, (key, _label) in enumerate(sides):
        s = figures[key]
        per_k = 1000 / max(s["turns"], 1)
        left = 0.0
        for part, color in (("parse_seconds", "tab:blue"), ("write_seconds", "tab:orange"),
                            ("embed_seconds", "tab:green")):
            width = s[part] * per_k
            ax.barh(row, width, left=left, color=color, label=part.split("_")[0] if row == 1 else None)
            left += width
        ax.text(left, row, f"  {s['turns_per_s']} turns/s, {s['mb_per_s']} MB/s", va="center", fontsize=8)
    ax.set_yticks(range(len(sides)), [label for _k, label in sides])
    ax.set_xlabel("seconds per 1,000 imported turns (with their tool calls)")
    ax.set_title(f"Bulk import of {figures['corpus']['turns']:,} transcript turns ({figures['corpus']['mb']} MB)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.45)
    fig.tight_layout()
    path = out_dir / "import_throughput.png"
    fig.savefig(path)
    plt.close(fig)
    return path


def part_result(figures: dict[str, Any], plots: list[Path] | None = None) -> PartResult:
    w, e = figures["without_embeddings"], figures["with_embeddings"]
    headline = [
        Headline("bulk import (transcripts, with tool calls)", f"{w['turns_per_s']} turns/s ({w['mb_per_s']} MB/s)",
                 "", ""),
        Headline("bulk import + local embeddings", f"{e['turns_per_s']} turns/s ({e['mb_per_s']} MB/s)",
                 f"without embeddings {w['turns_per_s']} turns/s",
                 f"{figures.get('with_over_without_turns_per_s', '')}x"),
    ]
    return PartResult(name="import", title="Bulk import throughput", figures=figures,
                      markdown=import_markdown(figures), plots=plots or [], headline=headline, notes=_notes(figures))


def part_from_results(path: Path, out_dir: Path) -> PartResult:
    """The import part rebuilt from an ``import.json`` written by ``graphmem bench import``
    (``bench all --import-results``): same tables and headline, the plot drawn again under
    ``out_dir``, the file's notes after one naming the file and its command."""
    loaded = read_part_results(path, "import")
    figures: dict[str, Any] = loaded["figures"]
    res = part_result(figures, [_plot(figures, out_dir)])
    res.notes = [results_source_note(path, loaded), *[str(n) for n in loaded.get("notes", res.notes)]]
    res.figures = {**figures, "source": str(path), "source_command": loaded.get("command")}
    return res


def write_import(result: PartResult, out_dir: Path, command: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    m = result.figures.get("machine", {})
    js, md = out_dir / "import.json", out_dir / "import.md"
    js.write_text(json.dumps({"name": "import", "command": command, "figures": result.figures,
                              "notes": result.notes}, indent=2) + "\n")
    body = ["# Benchmark: import", "", f"Command: `{command}`", "",
            f"Machine: {m.get('cpu')} ({m.get('cores')} cores, {m.get('memory_gb')} GB), {m.get('os')}, "
            f"Python {m.get('python')}, Neo4j {m.get('neo4j')}, graphmem {m.get('graphmem')}, {m.get('date')}", "",
            result.markdown, *[f"![{p.stem}]({p.name})" for p in result.plots], "",
            *[f"- {n}" for n in result.notes]]
    md.write_text("\n".join(body) + "\n")
    return js, md


def run_part(*, out_dir: Path, quick: bool, memory: GraphMemory | None = None, turns: int | None = None,
             log: Log | None = None) -> PartResult:
    """The import part of ``graphmem bench all``: ``memory`` or the configured server (started if
    needed); 20,000 turns (``quick``: 300). Writes its plot under ``out_dir``."""
    say = log or (lambda m: print(m, file=sys.stderr, flush=True))
    n = turns or (300 if quick else 20_000)
    if memory is not None:
        figures = run_import(memory, n, log=say)
    else:
        from graphmem.cli.common import open_memory

        with open_memory(start=True) as mem:
            figures = run_import(mem, n, log=say)
    return part_result(figures, [_plot(figures, out_dir)])


def register(verbs: Any) -> None:
    """``graphmem bench import`` (H1's bench_cmd calls this with the ``bench`` sub-parsers)."""
    p = verbs.add_parser("import", help="bulk import throughput of a generated transcript corpus, with/without embeddings")
    p.add_argument("--turns", type=int, default=20_000)
    p.add_argument("--quick", action="store_true", help="300 turns (smoke run)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_handler)


def _handler(args: argparse.Namespace) -> int:
    turns = 300 if args.quick else args.turns
    command = "graphmem " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else (
        f"graphmem bench import --turns {turns}")
    result = run_part(out_dir=args.out, quick=args.quick, turns=turns)
    js, md = write_import(result, args.out, command)
    print(md.read_text())
    print(f"written: {js} {md}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m graphmem_devtools.bench.importing ...`` (same options as ``graphmem bench import``)."""
    parser = argparse.ArgumentParser(prog="graphmem bench")
    register(parser.add_subparsers(dest="verb", required=True))
    args = parser.parse_args(["import", *(sys.argv[1:] if argv is None else argv)])
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
