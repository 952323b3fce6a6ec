"""graphmem's Neo4j Browser guide and graph style, served by the managed server itself.

How it gets there (Neo4j Browser 5.24.0, the newest on Maven Central, on Neo4j 5.26 and 2026.x):

* A Neo4j server serves the Browser from ``<home>/web/neo4j-browser*.zip`` when that file exists
  (setting ``internal.dbms.web_dir_path``, default ``web``), else from the ``browser/`` folder of the
  Browser jar on its classpath. :func:`install` writes ``web/neo4j-browser.zip``: the jar's
  ``browser/`` plus ``browser/graphmem/guide.html`` and ``browser/graphmem/graphmem.grass``. So
  the guide and the style are plain static files of the server's own HTTP port, same origin as
  the Browser: no extra process, no unmanaged extension.
* The server setting ``browser.post_connect_cmd`` (in the managed ``neo4j.conf``) runs
  ``:style <url>; :play <url>`` after each connection, and ``browser.remote_content_hostname_whitelist``
  allows ``127.0.0.1`` (the Browser fetches guides and styles only from listed hosts).
* The zip is read when the server starts: :func:`install` before a start, or a restart after it.

Limits of this Browser version: a guide is plain HTML (scripts and ``on*`` attributes are
stripped; ``<pre class="runnable">`` blocks go to the editor on click, ``data-exec`` runs a
command); a style is GRaSS (per-label colours, sizes and caption templates with ``{property}``
placeholders, no conditions on property values, and no ``:`` or ``;`` inside values); the style
replaces whatever the user set in ``:style`` on every connection (``:style reset`` undoes it for
the session). A server graphmem does not manage needs ``:play``/``:style`` with URLs where these
files are served (see ``graphmem db browser``).
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import zipfile
from importlib import resources
from pathlib import Path

from .. import cypher
from ..errors import ServerError

__all__ = [
    "BUNDLE_NAME",
    "GUIDE_PATH",
    "STYLE_PATH",
    "browser_jar",
    "build_web_bundle",
    "bundle_stamp",
    "guide_html",
    "guide_url",
    "install",
    "installed_stamp",
    "style_grass",
    "style_url",
]

BUNDLE_NAME = "neo4j-browser.zip"
"""Matched by the server's ``internal.dbms.browser_artefact_pattern`` (``neo4j-browser*.zip``)."""
GUIDE_PATH = "graphmem/guide.html"
STYLE_PATH = "graphmem/graphmem.grass"
"""Paths under the Browser's root (``/browser/``)."""

_PACKED = (".png", ".jpg", ".jpeg", ".gif", ".mp4", ".woff", ".woff2", ".ico")
_PLACEHOLDER = re.compile(r"\{\{([a-z0-9_/]+)\}\}")


def _resource(name: str) -> str:
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


def guide_html() -> str:
    """The guide, with every ``{{explore/name}}`` replaced by that query file's text (escaped)."""
    return _PLACEHOLDER.sub(lambda m: html.escape(cypher.query(m.group(1)), quote=False), _resource("guide.html"))


def style_grass() -> str:
    """graphmem's GRaSS style for the Browser's graph view."""
    return _resource("graphmem.grass")


def guide_url(http_port: int, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{http_port}/browser/{GUIDE_PATH}"


def style_url(http_port: int, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{http_port}/browser/{STYLE_PATH}"


def browser_jar(lib_dir: Path) -> Path | None:
    """The Neo4j Browser jar among the server's jars, if any."""
    jars = sorted(lib_dir.glob("neo4j-browser-*.jar"))
    return jars[-1] if jars else None


def bundle_stamp(jar: Path) -> str:
    """What a bundle is built from: the jar's name and size, and graphmem's files."""
    h = hashlib.sha256()
    h.update(f"{jar.name}:{jar.stat().st_size}\n".encode())
    h.update(guide_html().encode())
    h.update(style_grass().encode())
    return h.hexdigest()


def installed_stamp(bundle: Path) -> str | None:
    """The stamp recorded in an existing bundle (its zip comment), or None."""
    try:
        with zipfile.ZipFile(bundle) as z:
            return z.comment.decode("ascii", "replace") or None
    except (OSError, zipfile.BadZipFile):
        return None


def build_web_bundle(jar: Path, dest: Path) -> None:
    """Write ``dest``: the jar's ``browser/`` tree plus graphmem's guide and style.

    The server unpacks it with ``ZipInputStream``: the first entry must be the root folder and
    every folder must come before its files (``Files.createDirectory``/``createFile``), so the
    entries are written in that order. Written to a temporary file and renamed."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.partial")
    try:
        with zipfile.ZipFile(jar) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
            out.comment = bundle_stamp(jar).encode("ascii")
            out.writestr(zipfile.ZipInfo("browser/"), b"")
            seen = {"browser/"}
            for info in src.infolist():
                name = info.filename
                if not name.startswith("browser/") or name in seen:
                    continue
                parent = name.rstrip("/").rsplit("/", 1)[0] + "/"
                if parent not in seen:  # keep folders before their files even if the jar does not
                    for i in range(1, parent.count("/") + 1):
                        d = "/".join(parent.split("/")[:i]) + "/"
                        if d not in seen:
                            out.writestr(zipfile.ZipInfo(d), b"")
                            seen.add(d)
                seen.add(name)
                if info.is_dir():
                    out.writestr(zipfile.ZipInfo(name, info.date_time), b"")
                else:
                    entry = zipfile.ZipInfo(name, info.date_time)
                    packed = name.endswith(_PACKED)  # images and video: deflating gains nothing
                    entry.compress_type = zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED
                    out.writestr(entry, src.read(info), compresslevel=1)
            if "browser/graphmem/" not in seen:
                out.writestr(zipfile.ZipInfo("browser/graphmem/"), b"")
            out.writestr(f"browser/{GUIDE_PATH}", guide_html())
            out.writestr(f"browser/{STYLE_PATH}", style_grass())
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def install(server_dir: Path, lib_dir: Path | None = None) -> bool:
    """Make ``<server_dir>/web/neo4j-browser.zip`` current; True when it was (re)written.

    A running server keeps serving what it read at start: restart it to pick a new bundle up."""
    lib = lib_dir or server_dir / "lib"
    jar = browser_jar(lib)
    if jar is None:
        raise ServerError(f"no neo4j-browser jar in {lib}: install the server first")
    web = server_dir / "web"
    bundle = web / BUNDLE_NAME
    if installed_stamp(bundle) == bundle_stamp(jar):
        return False
    web.mkdir(parents=True, exist_ok=True)
    build_web_bundle(jar, bundle)
    return True
