"""``graphmem serve``: the memory service (HTTP API and dashboard) over the configured memory."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigError
from .common import open_memory

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the memory over HTTP: a JSON API (/docs) and the dashboard (/memory)",
        description=(
            "Serve the memory service: facts, search, settings, stats, the injection log and sessions as a JSON "
            "API (OpenAPI schema at /openapi.json), and the dashboard at /memory. Bound to 127.0.0.1 by "
            "default; bound to any other address every request needs the bearer token stored in "
            "$GRAPHMEM_HOME/service-token (created on first use). Needs the 'service' extra."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default: 8765)")
    p.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="allow this origin cross-site (repeatable; default: CORS off)")
    p.add_argument("--token", action="store_true",
                   help="require the bearer token on a loopback address too")
    p.add_argument("--start", action="store_true", help="start the managed Neo4j when it is not running")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    p.set_defaults(handler=_serve, group_parser=p)


def _serve(args: argparse.Namespace) -> int:
    try:
        from ..service import ServiceConfig, create_app, is_loopback, load_or_create_token, run
    except ModuleNotFoundError as e:
        raise ConfigError(f"graphmem serve needs the 'service' extra: pip install 'graphmem[service]' ({e.name} "
                          "is missing)") from None
    from ..chat import DigestConfig
    from ..config import Settings
    from ..facts import make_fact_extractor
    from ..retrieval.warmup import warm_up_in_background

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port: {args.port} is not a TCP port")
    settings = Settings.load()
    token = None
    if args.token or not is_loopback(args.host):
        token = load_or_create_token(settings.home)
    with open_memory(start=args.start, settings=settings) as mem:
        digester = mem.digester(make_fact_extractor(settings), DigestConfig.from_settings(settings))
        app = create_app(mem, ServiceConfig(token=token, cors_origins=tuple(args.cors_origin)), digester=digester)
        where = f"http://{args.host}:{args.port}"
        print(f"graphmem: serving the memory at {where}/memory (API docs: {where}/docs)", file=sys.stderr)
        if token is not None:
            print(f"graphmem: requests need 'Authorization: Bearer <token>' (token in {settings.home}/service-token)",
                  file=sys.stderr)
        warm_up_in_background(mem.warm_up, lambda line: print(f"graphmem: {line}", file=sys.stderr))
        run(app, args.host, args.port, log_level=args.log_level)
    return 0

