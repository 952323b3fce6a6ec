"""What the fault runs share: the CLI in a child process, the dedicated server's start and
connection, load average and percentiles."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..servers import ServerSpec, managed_env

__all__ = ["CLI", "Log", "db_up", "load_avg", "log_stderr", "open_db", "pcts", "run_cli"]

CLI = "import sys; from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"

Log = Callable[[str], None]


def log_stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_avg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def pcts(values: Sequence[float]) -> dict[str, float]:
    from ..bench.common import percentiles

    return percentiles([float(v) for v in values])


def run_cli(args: Sequence[str], env: dict[str, str], timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def db_up(spec: ServerSpec) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = run_cli(["db", "up"], managed_env(spec))
    return time.perf_counter() - t0, proc


def open_db(spec: ServerSpec) -> Any:
    from graphmem.db import Database

    server = spec.server()
    st = server.state()
    if st is None:
        raise RuntimeError(f"the managed server under {spec.home} is not running")
    return Database(st.uri, "neo4j", server.password(), "neo4j")
