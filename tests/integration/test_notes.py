"""Notes of a Markdown vault as a context source, on the real server: the fixed and tagged notes are
synced incrementally (by modification time; deleted or untagged notes removed), wiki links become
LINKS_TO, notes are embedded off the sync, searched by meaning and words, and build_context carries
them in their own section (fixed first, each cut); a missing vault is a warning, never an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.notes import NotesConfig, embed_pending_notes, search_notes, sync_notes, vault_key
from graphmem.worker import WorkerConfig

from ..conftest import Neo4jTarget
from ..support import support_db

pytestmark = pytest.mark.integration

LONG = "Le chat s'appelle Pixel. " * 60


def _write(path: Path, text: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))  # explicit times: no waiting for the clock to move


@pytest.fixture
def vault(tmp_path: Path, database: Database) -> Iterator[Path]:
    root = tmp_path / "vault"
    _write(root / "About me.md", "# About me\nI am Mickael, I live in Toulouse. See [[Projects/Shop]].\n", 1000)
    _write(root / "Projects" / "Shop.md",
           "---\ntags: [memory, work]\n---\n# The shop\nThe shop runs on PostgreSQL 16 and deploys with Kamal.\n", 1000)
    _write(root / "Pets.md", f"#memory/home\n{LONG}\n", 1000)
    _write(root / "Groceries.md", "milk, eggs, bread\n", 1000)  # no tag: stays out
    _write(root / ".obsidian" / "workspace.md", "#memory hidden\n", 1000)
    yield root
    support_db(database).write("testing/notes_cleanup", vault=vault_key(root))


def test_sync_is_incremental_and_follows_the_vault(database: Database, vault: Path) -> None:
    config = NotesConfig(vault, fixed=("About me.md",))
    first = sync_notes(database, config)
    assert (first.added, first.updated, first.removed, first.unchanged) == (3, 0, 0, 0)
    links = support_db(database).read("testing/note_links", vault=vault_key(vault))
    assert [(r["source"], r["target"]) for r in links] == [("About me.md", "Projects/Shop.md")]
    again = sync_notes(database, config)
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 3)
    _write(vault / "Projects" / "Shop.md",
           "---\ntags: [memory]\n---\n# The shop\nThe shop moved to MySQL 8 last month.\n", 2000)
    (vault / "Pets.md").unlink()
    changed = sync_notes(database, config)
    assert (changed.added, changed.updated, changed.removed, changed.unchanged) == (0, 1, 1, 1)
    _write(vault / "Projects" / "Shop.md", "# The shop\nNo tag any more.\n", 3000)
    assert sync_notes(database, config).removed == 1
    paths = {n.path for n in GraphMemory(database, notes=config).list_notes()}
    assert paths == {"About me.md"}


def test_notes_are_searched_and_reach_the_context(database: Database, namespace: str, vault: Path) -> None:
    embedder = LocalEmbedder()
    config = NotesConfig(vault, fixed=("About me.md",), context_hits=2)
    mem = GraphMemory(database, embedder=embedder, notes=config)
    assert mem.sync_notes().added == 3
    assert embed_pending_notes(database, embedder) == 3
    assert [h.path for h in search_notes(database, "Kamal", vault=vault, k=1)] == ["Projects/Shop.md"]  # words
    found = mem.search_notes("which database does the store use?", k=3)
    assert found[0].path == "Projects/Shop.md" and found[0].score is not None
    s = mem.create_session(namespace)
    block = mem.build_context(s.id, "what is my cat called?")
    paths = [n["path"] for n in block.notes]
    assert paths[0] == "About me.md" and "Pets.md" in paths  # fixed first, then the relevant ones
    assert "## Notes (From The Vault)" in block.text and "[About me - About me.md - fixed]" in block.text
    pets = next(n for n in block.notes if n["path"] == "Pets.md")
    shown = block.text.split("[Pets - Pets.md]\n", 1)[1].split("\n", 1)[0]
    assert len(shown) <= 500 and len(pets["text"]) == 500 < len(LONG)  # each note is cut in the block
    assert block.timings_ms["notes"] >= 0 and not block.warnings
    # a message no note speaks of carries the fixed notes only: no word of it in a note, no note near it
    idle = mem.build_context(s.id, "thanks, see you tomorrow!")
    assert [n["path"] for n in idle.notes] == ["About me.md"]
    # an explicit search still lists the nearest notes, however far
    assert len(mem.search_notes("thanks, see you tomorrow!", k=3)) == 3


def test_a_missing_vault_is_a_warning(database: Database, namespace: str, tmp_path: Path) -> None:
    gone = NotesConfig(tmp_path / "nowhere")
    result = sync_notes(database, gone)
    assert result.added == 0 and result.warnings and "notes vault not found" in result.warnings[0]
    mem = GraphMemory(database, embedder=LocalEmbedder(), notes=gone)
    block = mem.build_context(mem.create_session(namespace).id, "anything about the shop?")
    assert block.notes == [] and any("notes vault not found" in w for w in block.warnings)


def test_the_worker_syncs_the_vault(database: Database, namespace: str, vault: Path) -> None:
    mem = GraphMemory(database, embedder=LocalEmbedder(), notes=NotesConfig(vault))
    mem.worker(config=WorkerConfig(scope=namespace)).run_until_idle()  # the periodic cleanup runs first
    assert {n.path for n in mem.list_notes()} == {"Projects/Shop.md", "Pets.md"}


def test_the_service_lists_searches_and_syncs_notes(database: Database, vault: Path) -> None:
    import httpx

    from graphmem.service import create_app, serve_in_thread

    mem = GraphMemory(database, embedder=LocalEmbedder(), notes=NotesConfig(vault, fixed=("About me.md",)))
    bare = GraphMemory(database)
    try:
        with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=120) as http:
            assert http.get("/api/notes").json()["notes"] == []
            synced = http.post("/api/notes/sync").json()
            assert synced["added"] == 3 and synced["warnings"] == []
            listed = http.get("/api/notes").json()
            assert listed["configured"] and listed["vault_found"] and listed["tag"] == "memory"
            assert listed["fixed"] == ["About me.md"] and listed["notes"][0]["path"] == "About me.md"
            assert [n["path"] for n in http.get("/api/notes", params={"fixed": "true"}).json()["notes"]] == \
                ["About me.md"]
            found = http.get("/api/notes/search", params={"q": "Kamal", "k": 1}).json()["notes"]
            assert [n["path"] for n in found] == ["Projects/Shop.md"]
            assert http.get("/api/notes/search", params={"q": ""}).status_code in (400, 422)
        with serve_in_thread(create_app(bare)) as url, httpx.Client(base_url=url, timeout=120) as http:
            assert http.get("/api/notes").json() == {"configured": False, "vault": None, "tag": None, "fixed": [],
                                                     "vault_found": False, "notes": []}
            refused = http.post("/api/notes/sync")
            assert refused.status_code == 409 and refused.json()["field"] == "vault"
    finally:
        mem.deferred.close()
        bare.deferred.close()


def test_the_cli_syncs_and_searches_the_vault(database: Database, vault: Path, neo4j_target: Neo4jTarget,
                                              tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "NEO4J_"))}
    env.update(neo4j_target.env())
    env.update({"GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_EMBEDDER": "none",
                "GRAPHMEM_NOTES_VAULT": str(vault), "GRAPHMEM_NOTES_FIXED": "About me.md"})

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphmem.cli.main", *args], env=env, capture_output=True,
                              text=True, timeout=300)

    first = run("notes", "sync")
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == "notes: 3 added, 0 updated, 0 removed, 0 unchanged"
    assert run("notes", "sync").stdout.splitlines()[0] == "notes: 0 added, 0 updated, 0 removed, 3 unchanged"
    listed = run("notes", "list", "--fixed", "--json")
    assert [n["path"] for n in json.loads(listed.stdout)] == ["About me.md"]
    found = run("notes", "search", "Kamal", "-k", "1", "--json")
    assert found.returncode == 0 and [n["path"] for n in json.loads(found.stdout)] == ["Projects/Shop.md"]
    env.pop("GRAPHMEM_NOTES_VAULT")
    missing = run("notes", "sync")
    assert missing.returncode != 0 and "GRAPHMEM_NOTES_VAULT" in missing.stderr.strip().splitlines()[-1]


class _Plugin:
    """A local HTTPS server answering like Obsidian's Local REST API plugin, with a self-signed
    certificate made for the test (trusted explicitly by the client through its file)."""

    def __init__(self, root: Path, tmp: Path, key: str) -> None:
        import http.server
        import ssl
        import threading
        import urllib.parse

        self.cert = tmp / "plugin.crt"
        keyfile = tmp / "plugin.key"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(keyfile),
                        "-out", str(self.cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        plugin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                plugin.requests.append(self.path)
                if self.path == "/":
                    return self._send(200, {"status": "OK", "authenticated": False})
                if self.headers.get("Authorization") != f"Bearer {key}":
                    return self._send(401, {"errorCode": 40101, "message": "Authorization required"})
                rel = urllib.parse.unquote(self.path.removeprefix("/vault/"))
                target = root / rel
                if self.path.endswith("/"):
                    names = [p.name + ("/" if p.is_dir() else "") for p in sorted(target.iterdir())]
                    return self._send(200, {"files": names})
                if not target.is_file():
                    return self._send(404, {"errorCode": 40400, "message": "Not Found"})
                stat = target.stat()
                return self._send(200, {"path": rel, "content": target.read_text(), "frontmatter": {}, "tags": [],
                                        "stat": {"ctime": stat.st_ctime * 1000, "mtime": stat.st_mtime * 1000,
                                                 "size": stat.st_size}})

        self.requests: list[str] = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert, keyfile)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_vault_through_the_local_rest_api(database: Database, namespace: str, vault: Path,
                                              tmp_path: Path) -> None:
    from pydantic import SecretStr

    from graphmem.notes.rest import RestVault

    plugin = _Plugin(vault, tmp_path, "k3y")
    api = RestVault(plugin.url, SecretStr("k3y"), plugin.cert)
    config = NotesConfig(vault, fixed=("About me.md",), api=api)
    try:
        synced = sync_notes(database, config)
        assert (synced.added, synced.warnings) == (3, [])
        assert {n.path for n in GraphMemory(database, notes=config).list_notes()} == {
            "About me.md", "Projects/Shop.md", "Pets.md"}  # hidden folders skipped, untagged notes left out
        assert not any(".obsidian" in r for r in plugin.requests)
        assert sync_notes(database, config).unchanged == 3  # the plugin's mtime (ms) drives the increment
        # the certificate is trusted only when given: without it the sync refuses, it never turns verification off
        untrusted = sync_notes(database, NotesConfig(vault, api=RestVault(plugin.url, SecretStr("k3y"))))
        assert untrusted.added == 0 and "CERTIFICATE_VERIFY_FAILED" in untrusted.warnings[0]
        wrong = sync_notes(database, NotesConfig(vault, api=RestVault(plugin.url, SecretStr("nope"), plugin.cert)))
        assert "HTTP 401" in wrong.warnings[0] and "GRAPHMEM_NOTES_API_KEY" in wrong.warnings[0]
        mem = GraphMemory(database, embedder=LocalEmbedder(), notes=config)
        block = mem.build_context(mem.create_session(namespace).id, "which database does the shop use?")
        assert block.notes and block.notes[0]["path"] == "About me.md"
    finally:
        plugin.close()
    # the API is down: the context is built without notes and says why
    block = mem.build_context(mem.create_session(namespace + "/down").id, "which database does the shop use?")
    assert block.notes == [] and any("unreachable" in w and "no notes" in w for w in block.warnings)
    support_db(database).write("testing/notes_cleanup", vault=vault_key(plugin.url))
