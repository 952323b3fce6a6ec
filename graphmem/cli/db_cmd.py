"""``graphmem db``: the managed local Neo4j (up, down, status, init, browser)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import browser as browser_assets
from ..config import Settings
from ..db import managed_server, open_database, schema_status
from ..db.features import server_features
from ..errors import ConfigError
from ..memory import GraphMemory
from ..runtime.daemon_control import stop_daemon
from .common import add_json_flag, emit_json
from .warm_daemon import start_warm_daemon

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="the managed local Neo4j server and the schema")
    p.set_defaults(group_parser=p)
    verbs = p.add_subparsers(dest="verb", metavar="<verb>")

    up = verbs.add_parser("up", help="install (first time, from Maven Central), start and initialise the managed server")
    up.add_argument("--no-init", action="store_true", help="do not apply the schema")
    up.set_defaults(handler=_up)

    down = verbs.add_parser("down", help="stop the managed server (data is kept)")
    down.set_defaults(handler=_down)

    status = verbs.add_parser("status", help="where Neo4j is and whether it answers")
    add_json_flag(status)
    status.set_defaults(handler=_status)

    init = verbs.add_parser("init", help="apply the schema (idempotent) and record its version")
    init.set_defaults(handler=_init)

    browser = verbs.add_parser("browser", help="print the Neo4j Browser URL (user and server filled in) and how to log in")
    browser.add_argument("--open", action="store_true", help="open it in a web browser")
    browser.add_argument("--password", action="store_true", help="print the password alone (for the Browser's login)")
    browser.add_argument("--copy", action="store_true",
                         help="with --password: copy it to the clipboard (wl-copy, xclip, xsel or pbcopy) instead")
    browser.add_argument("--write-assets", metavar="DIR", help="write graphmem's guide.html and graphmem.grass into DIR")
    browser.set_defaults(handler=_browser)


def _require_managed(settings: Settings, verb: str) -> None:
    if not settings.managed:
        raise ConfigError(f"`graphmem db {verb}` manages the local server, but GRAPHMEM_NEO4J_URI/NEO4J_URI is set")


def _up(args: argparse.Namespace) -> int:
    settings = Settings.load()
    _require_managed(settings, "up")
    server = managed_server(settings)
    if not server.installed():
        print(f"installing Neo4j {settings.neo4j_version} from Maven Central (first time only)...", file=sys.stderr)
    was = server.state()
    if not was:
        server.install()
    # graphmem's Browser guide and style, read by the server when it starts (graphmem/browser)
    bundle_changed = browser_assets.install(server.server_dir, server.lib_dir)
    st = server.start()
    print(f"Neo4j {st.version} {'already running' if was else 'started'} on {st.uri} (pid {st.pid})")
    print(f"Browser: {connect_url(st.browser_url, st.uri, 'neo4j', settings.neo4j_database)}  "
          "password: `graphmem db browser --password`")
    if was and bundle_changed:
        print("the Browser guide changed: `graphmem db down && graphmem db up` to serve the new one", file=sys.stderr)
    if not args.no_init:
        with GraphMemory.from_settings(settings) as mem:
            print(f"schema version {mem.init_schema()}")
            from .spool_cmd import replay_spool_quietly  # turns hooks spooled while it was down

            report = replay_spool_quietly(mem)
            if report:
                print(report)
            from .embed_waiting import embed_waiting  # so that semantic search sees what is stored

            embedded = embed_waiting(mem, settings.home)
            if embedded:
                print(embedded)
    warm = start_warm_daemon(settings)
    if warm:
        print(warm)
    return 0


def _down(args: argparse.Namespace) -> int:
    settings = Settings.load()
    _require_managed(settings, "down")
    if stop_daemon(settings.home):  # first: a live daemon would start its stopped Neo4j again
        print("warm daemon stopped")
    stopped = managed_server(settings).stop()
    print("stopped" if stopped else "not running")
    return 0


def _status(args: argparse.Namespace) -> int:
    settings = Settings.load()
    info: dict[str, Any]
    if settings.managed:
        info = {"mode": "managed", **managed_server(settings).status()}
    else:
        info = {"mode": "explicit", "uri": settings.neo4j_uri, "database": settings.neo4j_database}
    try:
        with open_database(settings) as db:
            db.ping()
            info["reachable"] = True
            info["schema"] = schema_status(db)
            info["features"] = server_features(db).as_dict()
    except Exception as e:  # status reports; it does not fail on an unreachable server
        info["reachable"] = False
        info["error"] = str(e).splitlines()[0]
    if args.json:
        emit_json(info)
    else:
        features = info.pop("features", None)
        for k, v in info.items():
            print(f"{k:>14}: {v}")
        if features is not None:
            _print_features(features)
    return 0 if info.get("reachable") else 4


def _print_features(features: dict[str, Any]) -> None:
    routing = features["routing"]
    members = ", ".join(f"{role.lower()} {n}" for role, n in sorted(routing.items())) or "no routing table"
    print(f"{'server':>14}: Neo4j {features['version']} {features['edition']}, database {features['database']}"
          f" (databases: {', '.join(features['databases']) or '?'}); members: {members}")
    for name, why in sorted(features["missing"].items()):
        print(f"{'missing':>14}: {name}: no {why}")
    for note in features["notes"]:
        print(f"{'note':>14}: {note}")


def _init(args: argparse.Namespace) -> int:
    with GraphMemory.from_settings(Settings.load()) as mem:
        print(f"schema version {mem.init_schema()}")
    return 0


def _answers(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def connect_url(browser_url: str, bolt: str, user: str, database: str) -> str:
    """The Browser's URL with its connection form filled in: server, user and database (the Browser's
    ``dbms`` and ``db`` query parameters)."""
    from urllib.parse import quote

    scheme, _, address = bolt.partition("://")
    dbms = quote(f"{scheme}://{user}@{address}", safe=":/@")
    return f"{browser_url}?dbms={dbms}&db={quote(database, safe='')}"


_CLIPBOARD: tuple[tuple[str, list[str]], ...] = (("wl-copy", []), ("xclip", ["-selection", "clipboard"]), ("xsel", ["--clipboard", "--input"]),
              ("pbcopy", []))


def _copy(text: str) -> str | None:
    """Copy to the clipboard with the first tool that works; its name, or None."""
    import shutil
    import subprocess

    for tool, extra in _CLIPBOARD:
        exe = shutil.which(tool)
        if exe is None:
            continue
        try:
            done = subprocess.run([exe, *extra], input=text, text=True, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return tool
    return None


def _print_password(settings: Settings, copy: bool) -> int:
    if settings.managed:
        server = managed_server(settings)
        if not server.password_file.is_file():
            print("graphmem: error: the managed server has no password yet: run `graphmem db up`", file=sys.stderr)
            return 4
        password = server.password()
    elif settings.neo4j_password is not None:
        password = settings.neo4j_password.get_secret_value()
    else:
        raise ConfigError("no password is configured (GRAPHMEM_NEO4J_PASSWORD / NEO4J_PASSWORD)")
    if not copy:
        print(password)
        return 0
    tool = _copy(password)
    if tool:
        print(f"the password is in the clipboard (copied with {tool})")
    else:
        print(password)
        print("graphmem: no clipboard tool worked (wl-copy, xclip, xsel, pbcopy): the password is printed above",
              file=sys.stderr)
    return 0


def _browser(args: argparse.Namespace) -> int:
    if args.password or args.copy:
        return _print_password(Settings.load(), args.copy)
    if args.write_assets:
        from pathlib import Path

        out = Path(args.write_assets)
        out.mkdir(parents=True, exist_ok=True)
        (out / "guide.html").write_text(browser_assets.guide_html(), encoding="utf-8")
        (out / "graphmem.grass").write_text(browser_assets.style_grass(), encoding="utf-8")
        print(f"wrote {out / 'guide.html'} and {out / 'graphmem.grass'}")
        return 0
    settings = Settings.load()
    if settings.managed:
        server = managed_server(settings)
        st = server.state()
        if st is None:
            print("the managed server is not running: run `graphmem db up`", file=sys.stderr)
            return 4
        url = connect_url(st.browser_url, st.uri, "neo4j", settings.neo4j_database)
        bolt, creds = st.uri, "user neo4j, password: `graphmem db browser --password` (or --copy)"
        guide, style = browser_assets.guide_url(st.http_port), browser_assets.style_url(st.http_port)
        served = (server.server_dir / "web" / browser_assets.BUNDLE_NAME).is_file() and _answers(guide)
    else:
        url, bolt, creds = "(your server's Browser)", str(settings.neo4j_uri), "the password you configured"
        served = False
        guide = style = ""
    print(url)
    print(f"connect URL: {bolt}  credentials: {creds}")
    if served:
        print("after connecting, the Browser opens graphmem's guide and applies its style; to bring them back:")
        print(f"  :play {guide}")
        print(f"  :style {style}")
    else:
        hint = "restart it: `graphmem db down && graphmem db up`" if settings.managed else (
            "`graphmem db browser --write-assets DIR` writes them; serve DIR over HTTP from a host in the "
            "server's browser.remote_content_hostname_whitelist (localhost by default) with CORS allowed, then :play and "
            ":style their URLs (or paste the style after :style)"
        )
        print(f"graphmem's Browser guide and style are not served by this server: {hint}")
    if args.open:
        import webbrowser

        webbrowser.open(url)
    return 0
