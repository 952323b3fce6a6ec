"""``graphmem bench first-hour``: what a new user waits for and what lands on their disk.

- **clone to demo, cold**: a fresh ``git clone`` of a branch (default ``main``) into a temporary
  directory, an empty Maven local repository (``MAVEN_OPTS=-Dmaven.repo.local=...``: every Neo4j jar
  comes from Maven Central), a fresh ``GRAPHMEM_HOME`` on ports of its own; then ``make demo``, timed in
  its two steps (the venv with graphmem installed by pip, then the demo: Maven resolution, server
  start, the recorded session). pip's own cache is left as it is on the machine (the figure says so).
  The server is stopped and everything removed afterwards.
- **disk** of that run: the Maven repository, ``$GRAPHMEM_HOME``, the venv.
- **start-up per command group** and the **managed server's footprint** come from their own results
  files (``startup.json``, ``footprint.json``), quoted with their commit, date and load.
- **import floor**: ``python -c pass`` beside ``python -c "import neo4j"`` (what every command that
  talks to Neo4j pays before doing anything), interleaved process by process.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import BenchResult, machine_info, write_results

__all__ = ["register", "run_first_hour_bench"]

_IMPORTS = [("python -c pass", "pass"), ("import neo4j", "import neo4j"),
            ("import graphmem.cli (the parser)", "import graphmem.cli.main")]


def _du_mib(path: Path) -> float:
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=False)
    return float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout else 0.0


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _imports(runs: int) -> dict[str, str]:
    samples: dict[str, list[float]] = {name: [] for name, _ in _IMPORTS}
    for _ in range(runs):
        for name, code in _IMPORTS:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples[name].append((time.perf_counter() - t0) * 1000)
    return {name: f"median {statistics.median(s):.0f} ms (min {min(s):.0f}, max {max(s):.0f}; n {len(s)})"
            for name, s in samples.items()}


def _quoted(results: Path, name: str) -> dict[str, Any]:
    path = results / f"{name}.json"
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _clone_to_demo(repo: Path, ref: str, bolt: int, http: int, log: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="graphmem-first-hour-") as tmp:
        root = Path(tmp)
        clone, m2, home = root / "clone", root / "m2", root / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_", "VIRTUAL_ENV"))}
        env.update(MAVEN_OPTS=f"-Dmaven.repo.local={m2}", GRAPHMEM_HOME=str(home),
                   GRAPHMEM_BOLT_PORT=str(bolt), GRAPHMEM_HTTP_PORT=str(http))
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "/.venv/" not in p)
        out: dict[str, Any] = {"load average before": _load()}
        t0 = time.perf_counter()
        subprocess.run(["git", "clone", "-q", "--branch", ref, "--single-branch", str(repo), str(clone)],
                       check=True, env=env)
        out["git clone (local)"] = f"{time.perf_counter() - t0:.1f} s"
        commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        out["cloned commit"] = commit
        try:
            t1 = time.perf_counter()
            subprocess.run(["make", "-s", ".venv/.graphmem-demo-installed"], cwd=clone, env=env, check=True,
                           stdout=subprocess.DEVNULL)
            venv_s = time.perf_counter() - t1
            log(f"venv and pip install: {venv_s:.1f} s")
            t2 = time.perf_counter()
            demo = subprocess.run(["make", "-s", "demo"], cwd=clone, env=env, capture_output=True, text=True,
                                  check=False)
            demo_s = time.perf_counter() - t2
            log(f"make demo (Maven, start, demo): {demo_s:.1f} s, exit {demo.returncode}")
            if demo.returncode != 0:
                raise RuntimeError("make demo failed:\n" + "\n".join((demo.stdout + demo.stderr).splitlines()[-20:]))
            out["make demo: venv + pip install graphmem (pip cache warm)"] = f"{venv_s:.1f} s"
            out["make demo: Maven resolution from an empty repository, server start, the demo"] = f"{demo_s:.1f} s"
            out["make demo, total"] = f"{venv_s + demo_s:.1f} s"
            out["clone to demo, total"] = f"{time.perf_counter() - t0:.1f} s"
            out["demo's own line"] = next((line for line in demo.stdout.splitlines() if "connected to Neo4j" in line), "")
            out["disk: Maven repository"] = f"{_du_mib(m2):.0f} MiB"
            out["disk: $GRAPHMEM_HOME (jars hard-linked from the Maven repository)"] = f"{_du_mib(home):.0f} MiB"
            out["disk: Maven repository and $GRAPHMEM_HOME counted together (a hard link once)"] = \
                f"{_du_both(m2, home):.0f} MiB"
            out["disk: .venv"] = f"{_du_mib(clone / '.venv'):.0f} MiB"
        finally:
            graphmem = clone / ".venv" / "bin" / "graphmem"
            if graphmem.exists():
                subprocess.run([str(graphmem), "db", "down"], env=env, cwd=clone, capture_output=True, check=False)
        out["load average after"] = _load()
        return out


def _du_both(a: Path, b: Path) -> float:
    """Disk of two trees counted together (a hard link counts once)."""
    out = subprocess.run(["du", "-sm", "-c", str(a), str(b)], capture_output=True, text=True, check=False)
    lines = out.stdout.splitlines()
    return float(lines[-1].split()[0]) if lines else 0.0


def run_first_hour_bench(repo: Path, ref: str, *, bolt: int, http: int, runs: int, results: Path,
                         skip_clone: bool = False, log: Any = print) -> BenchResult:
    figures: dict[str, Any] = {}
    notes: list[str] = [f"load average (1, 5, 15 min) at the start {_load()}"]
    if not skip_clone:
        for k, v in _clone_to_demo(repo, ref, bolt, http, log).items():
            figures[f"clone to demo: {k}"] = v
    else:  # keep the clone figures of the previous run, saying so
        previous = _quoted(results, "first-hour")
        kept = {k: v for k, v in previous.get("figures", {}).items() if k.startswith("clone to demo: ")}
        if kept:
            figures.update(kept)
            m = previous.get("machine", {})
            notes.append(f"clone-to-demo figures kept from the run of {m.get('date')} (commit {m.get('commit')}, "
                         f"`{previous.get('command')}`)")
    for k, v in _imports(runs).items():
        figures[f"import floor: {k}"] = v
    startup = _quoted(results, "startup")
    if startup:
        m = startup.get("machine", {})
        notes.append(f"start-up per command group quoted from startup.json (`{startup.get('command')}`, commit "
                     f"{m.get('commit')}, {m.get('date')}; {'; '.join(n for n in startup.get('notes', []) if 'load' in n)})")
        for k, v in startup.get("figures", {}).items():
            figures[f"start-up: {k}"] = v
    compared = _quoted(results / "first-hour-startup", "startup")
    if compared:
        m = compared.get("machine", {})
        notes.append(f"start-up of this commit beside main, interleaved in one run, quoted from "
                     f"first-hour-startup/startup.json (`{compared.get('command')}`, commit {m.get('commit')}, "
                     f"{m.get('date')}; {'; '.join(n for n in compared.get('notes', []) if 'load' in n)})")
        for k, v in compared.get("figures", {}).items():
            figures[f"start-up, this commit vs main: {k}"] = v
    footprint = _quoted(results, "footprint")
    if footprint:
        fresh = footprint.get("fresh", {})
        disk = fresh.get("home_disk", {})
        figures["fresh install: managed server RSS"] = f"{fresh.get('server_rss_mib')} MiB"
        figures["fresh install: $GRAPHMEM_HOME"] = (f"{disk.get('total_mib')} MiB ({disk.get('hard_linked_mib')} MiB "
                                                     "of it jars hard-linked to Maven's repository)")
        notes.append(f"fresh-install RSS and home quoted from footprint.json (commit {footprint.get('commit')}, "
                     f"{footprint.get('date')}, load before {footprint.get('load_average_before')})")
    notes.append(f"load average at the end {_load()}")
    command = "graphmem bench first-hour " + shlex.join(sys.argv[3:]) if sys.argv[1:3] == ["bench", "first-hour"] \
        else "graphmem bench first-hour"
    return BenchResult(name="first-hour", command=command.strip(), machine=machine_info(), figures=figures,
                       notes=notes)


def register(verbs: Any) -> None:
    p = verbs.add_parser("first-hour", help="clone to demo on a cold Maven repository, disk, start-up floors")
    p.add_argument("--repo", type=Path, default=Path("."), help="the repository to clone (default: this one)")
    p.add_argument("--ref", default="main", help="branch to clone (default main)")
    p.add_argument("--bolt-port", type=int, default=17887, help="Bolt port of the cloned demo's server")
    p.add_argument("--http-port", type=int, default=17874, help="HTTP port of the cloned demo's server")
    p.add_argument("--runs", type=int, default=9, help="timed runs of each import floor (default 9)")
    p.add_argument("--skip-clone", action="store_true", help="only the import floors and the quoted figures")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.set_defaults(handler=_first_hour)


def _first_hour(args: argparse.Namespace) -> int:
    if shutil.which("make") is None or shutil.which("git") is None:
        print("graphmem: error: bench first-hour needs git and make", file=sys.stderr)
        return 2
    result = run_first_hour_bench(args.repo.resolve(), args.ref, bolt=args.bolt_port, http=args.http_port,
                                  runs=args.runs, results=args.out, skip_clone=args.skip_clone,
                                  log=lambda m: print(m, file=sys.stderr))
    _, md = write_results(result, args.out)
    print(result.markdown())
    print(f"wrote {md}", file=sys.stderr)
    return 0
