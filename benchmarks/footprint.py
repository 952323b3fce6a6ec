"""Footprint of graphmem's managed Neo4j and start-up time of the CLI.

Run with the project's venv (not part of the installed package)::

    .venv/bin/python benchmarks/footprint.py [--turns 100000] [--out benchmarks/results]

It installs and starts a managed Neo4j of its own (a temporary ``GRAPHMEM_HOME``, free ports, the
jars linked from Maven's local repository), then measures:

* right after the fresh start: resident memory (VmRSS) of the server and disk of the home;
* after storing ``--turns`` short turns (``GraphMemory.import_turns``, batches of 500, 1000 turns
  a session, no embeddings, no summaries): the same, and again after a restart (the page cache is
  sized from the store at each start);
* wall time of one CLI process per command group (``graphmem --help``, ``stats``, ``search``,
  ``hook claude-code`` through a running daemon), median of ``--runs`` runs.

Writes ``footprint.md`` and ``footprint.json`` under ``--out`` with the commit, date and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem import Database, GraphMemory
from graphmem.config import DEFAULT_NEO4J_VERSION
from graphmem.neo4j_local import ManagedServer
from graphmem.neo4j_local.sizing import MiB, store_bytes

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for pid {pid}")


def _disk(path: Path) -> dict[str, float]:
    """Allocated MiB under ``path`` (each inode once, as ``du``), and the part in files that have
    other hard links (the jars shared with Maven's repository: no extra disk)."""
    seen: set[tuple[int, int]] = set()
    total = shared = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            size = st.st_blocks * 512
            total += size
            if st.st_nlink > 1:
                shared += size
    return {"total_mib": round(total / MiB, 1), "hard_linked_mib": round(shared / MiB, 1),
            "own_mib": round((total - shared) / MiB, 1)}


def _apparent_mib(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / MiB, 1)


def _snapshot(server: ManagedServer, pid: int) -> dict[str, Any]:
    data = server.server_dir / "data"
    return {
        "server_rss_mib": _rss_mib(pid),
        "home_disk": _disk(server.home),
        "data_apparent_mib": _apparent_mib(data),  # what `graphmem stats` reports as the store size
        "store_files_mib": round(store_bytes(data) / MiB, 1),
        "transaction_logs_mib": _apparent_mib(data / "transactions"),
        "memory_plan": asdict(server.memory_plan()),
    }


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cli_times(env: dict[str, str], runs: int, home: Path) -> list[dict[str, Any]]:
    exe = Path(sys.executable).parent / "graphmem"
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "footprint-probe",
                         "prompt": "what did we decide about the retry policy?", "cwd": str(home)}).encode()
    groups: list[tuple[str, list[str], bytes | None]] = [
        ("graphmem --help", ["--help"], None),
        ("graphmem stats", ["stats"], None),
        ("graphmem search 'retry policy'", ["search", "retry policy"], None),
        ("graphmem hook claude-code (prompt, daemon running)", ["hook", "claude-code"], prompt),
    ]
    out = []
    for label, args, stdin in groups:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            r = subprocess.run([str(exe), *args], env=env, input=stdin, capture_output=True, timeout=300)
            times.append((time.perf_counter() - t0) * 1000)
            if r.returncode != 0:
                raise RuntimeError(f"{label} failed: {r.stderr.decode(errors='replace')[-2000:]}")
        out.append({"command": label, "runs": runs, "median_ms": round(statistics.median(times), 1),
                    "min_ms": round(min(times), 1), "max_ms": round(max(times), 1)})
    return out


def _store_turns(uri: str, password: str, turns: int, log: Any) -> float:
    per_session = 1000
    t0 = time.perf_counter()
    with Database(uri, "neo4j", password) as db:
        mem = GraphMemory(db)
        mem.init_schema()
        done = 0
        while done < turns:
            n = min(per_session, turns - done)
            session = mem.create_session(f"/footprint/project-{done // per_session % 10}", agent="footprint")
            rows = [{"user_message": f"question {done + i} about the retry policy of module {i % 37}",
                     "assistant_message": f"answer {done + i}: use exponential backoff, capped at {i % 9 + 1} s"}
                    for i in range(n)]
            mem.import_turns(session.id, rows, batch_size=500)
            done += n
            if done % 10000 == 0:
                log(f"  {done} turns stored")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--turns", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=5, help="runs of each CLI command (median reported)")
    p.add_argument("--version", default=DEFAULT_NEO4J_VERSION)
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    p.add_argument("--keep", action="store_true", help="keep the temporary home (printed)")
    args = p.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    load_before = [round(x, 2) for x in os.getloadavg()]
    home = Path(tempfile.mkdtemp(prefix="graphmem-footprint-"))
    bolt, http = _free_port(), _free_port()
    server = ManagedServer(home, args.version, bolt_port=bolt, http_port=http, start_timeout=900)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "OPENAI_"))}
    env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_NEO4J_VERSION": args.version,
                "GRAPHMEM_BOLT_PORT": str(bolt), "GRAPHMEM_HTTP_PORT": str(http),
                "GRAPHMEM_EMBEDDER": "none", "GRAPHMEM_DAEMON_WORKER": "0"})
    result: dict[str, Any] = {}
    try:
        log(f"installing and starting Neo4j {args.version} under {home}")
        t0 = time.perf_counter()
        server.install()
        install_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        st = server.start()
        start_s = time.perf_counter() - t0
        fresh = _snapshot(server, st.pid) | {"install_s": round(install_s, 1), "start_s": round(start_s, 1)}
        log(f"fresh: {fresh}")
        log(f"storing {args.turns} turns")
        store_s = _store_turns(st.uri, server.password(), args.turns, log)
        filled = _snapshot(server, st.pid) | {"store_s": round(store_s, 1),
                                             "turns_per_s": round(args.turns / store_s, 1)}
        log(f"after {args.turns} turns: {filled}")
        server.stop()
        t0 = time.perf_counter()
        st = server.start()
        restarted = _snapshot(server, st.pid) | {"start_s": round(time.perf_counter() - t0, 1)}
        log(f"after a restart: {restarted}")
        subprocess.run([str(Path(sys.executable).parent / "graphmem"), "daemon", "start", "--wait", "300"],
                       env=env, capture_output=True, check=True, timeout=600)
        cli = _cli_times(env, args.runs, home)
        log(f"CLI: {cli}")
        subprocess.run([str(Path(sys.executable).parent / "graphmem"), "daemon", "stop"], env=env,
                       capture_output=True, timeout=120)
        result = {
            "name": "footprint",
            "commit": _git("rev-parse", "--short", "HEAD"),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "load_average_before": load_before,
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                        "memory_mib": round(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / MiB)},
            "neo4j": args.version,
            "java_home": st.java_home,
            "turns": args.turns,
            "fresh": fresh,
            "after_turns": filled,
            "after_restart": restarted,
            "cli": cli,
        }
    finally:
        server.stop()
        if args.keep:
            log(f"home kept: {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "footprint.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "footprint.md").write_text(_markdown(result))
    log(f"wrote {args.out / 'footprint.md'}")
    return 0


def _markdown(r: dict[str, Any]) -> str:
    def row(label: str, s: dict[str, Any]) -> str:
        d, m = s["home_disk"], s["memory_plan"]
        return (f"| {label} | {s['server_rss_mib']} | {d['total_mib']} | {d['hard_linked_mib']} | {d['own_mib']} | "
                f"{s['data_apparent_mib']} | {s['store_files_mib']} | {s['transaction_logs_mib']} | "
                f"{m['heap_initial']} / {m['heap_max']} / {m['pagecache']} |")

    lines = [
        "# Footprint of the managed Neo4j, and CLI start-up",
        "",
        "Command: `.venv/bin/python benchmarks/footprint.py --turns "
        f"{r['turns']}` (a managed Neo4j {r['neo4j']} of its own under a temporary home; Java {r['java_home']})",
        "",
        f"Commit {r['commit']}, {r['date']}; load average before {r['load_average_before']}, "
        f"after {r['load_average_after']}; {r['machine']['cpus']} CPUs, {r['machine']['memory_mib']} MiB, "
        f"Python {r['machine']['python']}, {r['machine']['platform']}",
        "",
        "| moment | server RSS MiB | home disk MiB | of which jars hard-linked to ~/.m2 | home's own MiB | "
        "data (as `graphmem stats`) MiB | store files MiB | tx logs MiB | plan at next start: heap initial / max / page cache |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        row("fresh install, right after start", r["fresh"]),
        row(f"after storing {r['turns']:,} turns", r["after_turns"]),
        row("after a restart (page cache re-sized from the store)", r["after_restart"]),
        "",
        f"- Fresh install {r['fresh']['install_s']} s (Maven resolves the jars; linked from its local repository, "
        f"already filled here), first start {r['fresh']['start_s']} s; restart {r['after_restart']['start_s']} s.",
        f"- {r['turns']:,} turns stored with `GraphMemory.import_turns` (batches of 500, 1,000 short turns a session, "
        f"no embeddings, no summaries: the worker did not run) in {r['after_turns']['store_s']} s "
        f"({r['after_turns']['turns_per_s']} turns/s).",
        "- RSS is VmRSS of the server's JVM: the heap starts at 128 MiB and grows; the page cache fills as pages are read.",
        "- Before this sizing (figures of the issue that asked for it): 2.5 GB RSS at start (`-Xms2g` with "
        "AlwaysPreTouch, a 2 GB page cache), 518 MiB of store for 5 turns (two preallocated 256 MiB transaction "
        "logs), the jars kept twice (~170 MB in ~/.m2 and again in lib/).",
        "",
        "## CLI start-up (one process per run, wall time)",
        "",
        "| command | runs | median ms | min ms | max ms |",
        "|---|---:|---:|---:|---:|",
        *[f"| `{c['command']}` | {c['runs']} | {c['median_ms']} | {c['min_ms']} | {c['max_ms']} |" for c in r["cli"]],
        "",
        "- `GRAPHMEM_EMBEDDER=none` (no model load), the daemon started beforehand for the hook "
        "(`GRAPHMEM_DAEMON_WORKER=0`); `stats` and `search` run on the store of the turns above.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
