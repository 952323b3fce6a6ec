"""``graphmem daemon run|start|stop|status``: the warm local process the hooks talk to."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import add_json_flag, emit_json

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("daemon", help="the local process that answers the hooks (warm driver and embedder)")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")
    run = verbs.add_parser("run", help="run the daemon in the foreground")
    run.add_argument("--no-worker", action="store_true", help="do not run the summarizer worker thread")
    run.add_argument("--quiet", action="store_true", help="log warnings only")
    run.set_defaults(handler=_daemon_run)
    start = verbs.add_parser("start", help="start it in the background (the hooks also do, on first use)")
    start.add_argument("--wait", type=float, default=60.0, help="seconds to wait until it answers")
    start.set_defaults(handler=_daemon_start)
    stop = verbs.add_parser("stop", help="stop it")
    stop.set_defaults(handler=_daemon_stop)
    status = verbs.add_parser("status", help="whether it runs, its pid, embedder and spool state")
    add_json_flag(status)
    status.set_defaults(handler=_daemon_status)


def _daemon_run(args: argparse.Namespace) -> int:
    import logging

    from ..runtime.daemon import Daemon
    from .main import run_for_client

    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    daemon = Daemon(worker=False if args.no_worker else None, cli_runner=run_for_client)
    code = daemon.run()
    if code:
        print(f"graphmem: another daemon serves {daemon.home}", file=sys.stderr)
    return code


def _daemon_start(args: argparse.Namespace) -> int:
    from ..runtime.daemon import start_daemon

    st = start_daemon(wait=args.wait)
    print(f"daemon running (pid {st.pid}) on {st.socket}")
    return 0


def _daemon_stop(args: argparse.Namespace) -> int:
    from ..runtime.daemon import stop_daemon

    print("daemon stopped" if stop_daemon() else "daemon not running")
    return 0


def _daemon_status(args: argparse.Namespace) -> int:
    from ..runtime.daemon import daemon_status

    st = daemon_status()
    if args.json:
        emit_json(st.as_dict())
    else:
        for k, v in st.as_dict().items():
            print(f"{k:>15}: {v}")
    return 0 if st.running else 1
