"""The memory service over real HTTP (uvicorn on a free port, httpx) against the real Neo4j.

Facts (add, list, edit, delete), search in each mode, settings (validated PATCH) and the next
injection following them, stats, the injection log, sessions with their summary tree, the live
event stream, errors as JSON naming the field, a database outage as 503, and the bearer token of
``graphmem serve`` bound off loopback (the CLI in a subprocess).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx", reason="needs httpx (the dev extra)")
pytest.importorskip("fastapi", reason="needs the service extra (fastapi, uvicorn)")

from graphmem import Database, GraphMemory  # noqa: E402
from graphmem.embedding import LocalEmbedder  # noqa: E402
from graphmem.facts import FactScope, inject_facts  # noqa: E402
from graphmem.service import ServiceConfig, create_app, serve_in_thread  # noqa: E402

from ..conftest import Neo4jTarget  # noqa: E402

pytestmark = pytest.mark.integration

TIMEOUT = 120.0


@dataclass
class Service:
    url: str
    http: httpx.Client
    memory: GraphMemory


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def service(database: Database, embedder: LocalEmbedder) -> Iterator[Service]:
    mem = GraphMemory(database, embedder=embedder)
    with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        yield Service(url, http, mem)
    mem.deferred.close()


@pytest.fixture
def restore_settings(database: Database) -> Iterator[None]:
    """The settings are shared by everything using the database: put back what the test changed."""
    from graphmem.facts.tuning import TUNING_HELP, set_tuning, unset_tuning

    before = {r["key"]: r["value"] for r in database.read("tuning/all") if r["key"] in TUNING_HELP}
    yield
    for key in TUNING_HELP:
        if key in before:
            set_tuning(database, key, before[key])
        else:
            unset_tuning(database, key)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _error(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert "Traceback" not in r.text
    return body


def test_openapi_schema_lists_the_endpoints(service: Service) -> None:
    schema = service.http.get("/openapi.json").json()
    for path in ("/api/facts", "/api/facts/{fact_id}", "/api/search", "/api/settings", "/api/stats",
                 "/api/retrievals", "/api/sessions", "/api/sessions/{session_id}", "/api/events", "/memory"):
        assert path in schema["paths"], path
    assert {"get", "patch"} <= set(schema["paths"]["/api/settings"])
    assert service.http.get("/docs").status_code == 200
    health = service.http.get("/api/health").json()
    assert health["status"] == "ok" and health["neo4j"]


def test_facts_add_list_edit_delete(service: Service, namespace: str) -> None:
    http = service.http
    scope = f"project:{namespace}/app"
    r = http.post("/api/facts", json={"content": "The staging database is PostgreSQL 16 on port 5433",
                                      "scope": scope, "type": "fact", "subjects": ["staging"]})
    assert r.status_code == 201, r.text
    added = r.json()
    assert added["action"] == "inserted" and added["fact"]["scope_key"] == scope
    fid = added["fact"]["id"]

    listed = http.get("/api/facts", params={"scope": scope}).json()
    assert [f["id"] for f in listed["facts"]] == [fid]
    assert http.get("/api/facts", params={"scope": scope, "q": "postgresql"}).json()["count"] == 1
    assert http.get("/api/facts", params={"scope": scope, "q": "mysql"}).json()["count"] == 0
    assert http.get("/api/facts", params={"scope": scope, "subject": "staging"}).json()["count"] == 1
    assert http.get(f"/api/facts/{fid}").json()["fact"]["content"].startswith("The staging database")

    r = http.patch(f"/api/facts/{fid}", json={"content": "The staging database is PostgreSQL 17 on port 5434"})
    assert r.status_code == 200, r.text
    edited = r.json()
    assert edited["replaced"] == fid and edited["fact"]["content"].endswith("port 5434")
    assert edited["fact"]["subjects"] == ["staging"] and edited["fact"]["type"] == "fact"
    new_id = edited["fact"]["id"]
    assert [f["id"] for f in http.get("/api/facts", params={"scope": scope}).json()["facts"]] == [new_id]
    assert _error(http.get(f"/api/facts/{fid}"), 404)["error"] == "not found"

    r = http.delete(f"/api/facts/{new_id}")
    assert r.status_code == 200 and r.json()["removed"] == [new_id] and r.json()["audit_id"]
    assert http.get("/api/facts", params={"scope": scope}).json()["count"] == 0
    _error(http.delete(f"/api/facts/{new_id}"), 404)


def test_bad_input_is_a_4xx_naming_the_field(service: Service) -> None:
    http = service.http
    assert _error(http.post("/api/facts", json={"scope": "global"}), 422)["field"] == "content"
    assert _error(http.post("/api/facts", json={"content": "x", "importance": 3}), 422)["field"] == "importance"
    assert _error(http.post("/api/facts", json={"content": "x", "scope": "planet:mars"}), 400)["field"] == "scope"
    assert _error(http.post("/api/facts", json={"content": "x", "type": "rumour"}), 400)["field"] == "type"
    assert _error(http.get("/api/search", params={"q": "x", "mode": "fuzzy"}), 422)["field"] == "mode"
    assert _error(http.get("/api/search", params={"mode": "text"}), 422)["field"] == "q"
    assert _error(http.get("/api/search", params={"q": "x", "scope": "galaxy:far"}), 400)["field"] == "scope"
    assert _error(http.get("/api/facts", params={"limit": 0}), 422)["field"] == "limit"
    assert _error(http.patch("/api/settings", json={"injection.min_score": 7}), 400)["field"] == "injection.min_score"
    assert _error(http.patch("/api/settings", json={"injection.max_results": "many"}), 400)["field"] == \
        "injection.max_results"
    assert _error(http.patch("/api/settings", json={"no.such.knob": 1}), 400)["field"] == "no.such.knob"
    # an integer the database cannot hold was a 500 (OverflowError in the driver)
    assert _error(http.patch("/api/settings", json={"injection.max_results": 10**30}), 400)["field"] == \
        "injection.max_results"
    assert _error(http.patch("/api/settings", content=b"{not json", headers={"Content-Type": "application/json"}),
                  422)["field"]
    assert _error(http.get("/api/sessions/no-such-session"), 404)["error"] == "not found"


def test_search_each_mode_with_score_scope_date_and_excerpt(service: Service, namespace: str) -> None:
    mem = service.memory
    proj = f"{namespace}/shop"
    s = mem.create_session(proj, project_path=proj, agent="test")
    mem.store_turn(s.id, "Why is the shopping cart empty after login?",
                   "The reverse proxy drops the session cookie because of its SameSite attribute. " * 6)
    mem.store_turn(s.id, "Unrelated: which font does the invoice use?", "Inter, 11 points.")
    fact = mem.remember("The shopping cart cookie must be SameSite=None behind the proxy",
                        scope=FactScope.project(proj), type="decision")
    mem.embed_pending()
    mem.await_text_index()
    for mode in ("semantic", "text", "hybrid"):
        r = service.http.get("/api/search", params={"q": "shopping cart cookie", "mode": mode,
                                                    "scope": f"project:{proj}"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["mode"] == mode and body["scope"] == f"project:{proj}"
        assert body["time_window"] is None and body["events_searched_apart"] is None
        kinds = {h["kind"] for h in body["results"]}
        assert "turn" in kinds and "fact" in kinds, (mode, body)
        turn = next(h for h in body["results"] if h["kind"] == "turn")
        assert turn["session_id"] == s.id and turn["scope"] == f"session:{s.id}" and turn["date"]
        assert isinstance(turn["score"], float) and len(turn["excerpt"]) <= 200
        assert "cart" in turn["excerpt"]
        hit = next(h for h in body["results"] if h["kind"] == "fact")
        assert hit["id"] == fact.fact.id and hit["scope"] == f"project:{proj}" and hit["date"]
        if mode != "text":
            assert hit["score"] is not None and hit["score"] > 0.3
    only = service.http.get("/api/search", params={"q": "cookie", "mode": "text", "scope": f"session:{s.id}",
                                                   "kinds": "turns"}).json()
    assert only["results"] and {h["kind"] for h in only["results"]} == {"turn"}


def test_settings_patch_and_the_next_injection_follows(service: Service, namespace: str,
                                                        restore_settings: None) -> None:
    http, mem = service.http, service.memory
    proj = f"{namespace}/inj"
    s = mem.create_session(proj, project_path=proj, agent="test")
    for i in range(4):
        mem.remember(f"Deployment rule {i}: the billing service deploys on Friday from branch release-{i}",
                     scope=FactScope.project(proj), type="decision")
    r = http.patch("/api/settings", json={"injection.max_results": 2, "injection.min_score": 0.4,
                                          "injection.enabled": True, "injection.dedup_turns": 0})
    assert r.status_code == 200, r.text
    assert r.json()["settings"]["injection.max_results"] == 2
    assert http.get("/api/settings").json()["settings"]["injection.min_score"] == 0.4

    def inject(message: str) -> dict[str, Any]:
        done = inject_facts(mem.db, s.id, message, embedder=mem.embedder, deferred=None)
        assert done.log_id, done
        log = http.get("/api/retrievals", params={"session_id": s.id, "limit": 1}).json()["retrievals"][0]
        assert log["id"] == done.log_id
        return log

    first = inject("when does billing deploy?")
    assert first["itemCount"] == 2 and len(first["items"]) == 2
    assert all(i["content"] and i["reason"] for i in first["items"])
    assert first["messagePreview"] == "when does billing deploy?" and first["chars"] > 0
    assert first["estimatedTokens"] == first["chars"] // 4  # the log's estimate: characters / 4

    assert http.patch("/api/settings", json={"injection.max_results": 1}).status_code == 200
    second = inject("which branch does billing deploy from?")
    assert second["itemCount"] == 1

    assert http.patch("/api/settings", json={"injection.max_results": None}).json()["settings"][
        "injection.max_results"] == 20  # null: back to the default
    stats = http.get("/api/stats").json()
    assert stats["facts"] >= 4 and stats["sessions"] >= 1
    assert stats["injections"]["logged_recently"] >= 2 and stats["injections"]["chars_total"] > 0
    assert stats["auto_retrieval"]["injections"] >= 2
    assert stats["auto_retrieval"]["estimated_tokens"] == stats["auto_retrieval"]["chars"] // 4
    assert [p["purpose"] for p in stats["llm"]["purposes"]] == ["summaries", "fact extraction", "chat digest",
                                                                 "fact judge"]
    assert set(stats["llm"]["total"]) == {"calls", "prompt_tokens", "completion_tokens", "cost_usd"}


def test_sessions_with_turns_and_summary_tree(service: Service, namespace: str) -> None:
    from graphmem.worker import WorkerConfig

    mem = service.memory
    s = mem.create_session(f"{namespace}/timeline", agent="test", title="timeline")
    for i in range(6):
        mem.store_turn(s.id, f"step {i}: refactor module m{i}", f"done with m{i}; tests pass " * 20)
    mem.worker(config=WorkerConfig(batch_chars=0)).run_until_idle()
    listed = service.http.get("/api/sessions", params={"path": namespace}).json()["sessions"]
    assert [x["id"] for x in listed] == [s.id]
    assert listed[0]["turn_count"] == 6 and listed[0]["last_message"].startswith("step 5")
    detail = service.http.get(f"/api/sessions/{s.id}").json()
    assert [t["index"] for t in detail["turns"]] == [1, 2, 3, 4, 5, 6]
    tree = detail["summaries"]
    assert tree and {x["level"] for x in tree} >= {1}
    assert tree[0]["level"] == max(x["level"] for x in tree)  # highest level first
    level1 = [x for x in tree if x["level"] == 1]
    assert all(x["first_turn"] is not None and x["first_turn"] <= x["last_turn"] for x in level1)
    assert min(x["first_turn"] for x in level1) == 1
    assert len(service.http.get(f"/api/sessions/{s.id}", params={"turns": 2}).json()["turns"]) == 2


def test_event_stream_reports_a_change(service: Service, namespace: str) -> None:
    with service.http.stream("GET", "/api/events") as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        assert next(lines) == "event: hello"
        r = service.http.post("/api/facts", json={"content": "The event stream test fact", "scope": f"project:{namespace}"})
        assert r.status_code == 201
        seen = []
        for line in lines:
            seen.append(line)
            if line == "event: change":
                data = next(lines)
                assert json.loads(data.removeprefix("data: "))["what"] == "facts"
                break


def test_database_outage_is_a_503_with_the_reason(embedder: LocalEmbedder) -> None:
    port = _free_port()  # nothing listens there
    db = Database(f"bolt://127.0.0.1:{port}", "neo4j", "x", timeout=2.0, max_retry_time=0.0)
    mem = GraphMemory(db, embedder=embedder)
    try:
        with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
            for method, path, kw in [("GET", "/api/facts", {}), ("GET", "/api/stats", {}),
                                     ("GET", "/api/search", {"params": {"q": "x", "mode": "text"}}),
                                     ("POST", "/api/facts", {"json": {"content": "x"}}),
                                     ("GET", "/api/settings", {}), ("GET", "/api/health", {})]:
                body = _error(http.request(method, path, **kw), 503)
                assert body["error"] == "database unavailable" and "unreachable" in body["reason"], (path, body)
            assert http.get("/memory").status_code == 200  # the page itself is served
    finally:
        mem.close()


def test_token_and_cors(database: Database) -> None:
    mem = GraphMemory(database)
    cfg = ServiceConfig(token="s3cret-token", cors_origins=("http://allowed.example",))
    with serve_in_thread(create_app(mem, cfg)) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        assert _error(http.get("/api/stats"), 401)["field"] == "Authorization"
        assert http.get("/api/stats", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert http.get("/api/stats", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        assert http.get("/memory", params={"token": "s3cret-token"}).status_code == 200
        pre = http.options("/api/stats", headers={"Origin": "http://allowed.example",
                                                  "Access-Control-Request-Method": "GET"})
        assert pre.headers.get("access-control-allow-origin") == "http://allowed.example"
        other = http.get("/api/stats", headers={"Origin": "http://evil.example", "Authorization": "Bearer s3cret-token"})
        assert "access-control-allow-origin" not in other.headers
    with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
        r = http.get("/api/stats", headers={"Origin": "http://allowed.example"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers  # CORS off by default


def test_serve_off_loopback_needs_the_stored_token(neo4j_target: Neo4jTarget, tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = _free_port()
    env = {**os.environ, **neo4j_target.env(), "GRAPHMEM_HOME": str(home), "GRAPHMEM_EMBEDDER": "none"}
    proc = subprocess.Popen([sys.executable, "-m", "graphmem.cli.main", "serve", "--host", "0.0.0.0", "--port",
                             str(port), "--log-level", "info"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        out = []
        for line in proc.stdout:  # uvicorn says when it accepts connections
            out.append(line)
            if "Uvicorn running on" in line:
                break
        else:
            pytest.fail(f"graphmem serve exited with {proc.wait()}: {''.join(out)}")
        assert any("requests need 'Authorization: Bearer <token>'" in line for line in out), out
        token_file = home / "service-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=TIMEOUT) as http:
            assert _error(http.get("/api/stats"), 401)["error"] == "unauthorized"
            assert http.get("/api/stats", headers={"Authorization": f"Bearer {token}0"}).status_code == 401
            assert http.get("/api/stats", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        proc.terminate()
        proc.wait(30)


def test_digest_endpoints(database: Database, embedder: LocalEmbedder, namespace: str) -> None:
    """Status, run and the latest digests: 409 with the reason without an LLM (the messages stay);
    with one (the local OpenAI-compatible server), the facts are stored and the messages cleared."""
    from graphmem.chat import DigestConfig
    from graphmem.facts import FactExtractor
    from graphmem.providers.retry import RetryPolicy

    from ..fake_openai import FakeOpenAIServer, chat_content
    from ..support import support_db

    mem = GraphMemory(database, embedder=embedder)
    room = f"svc-{namespace.rsplit('/', 1)[-1][:12]}-lobby"
    scope = f"project:{namespace}/chat"
    try:
        mem.observe(room, "david", "j'ai déménagé à Toulouse")
        with serve_in_thread(create_app(mem)) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
            status = http.get("/api/digest", params={"room": room}).json()
            assert status["waiting"] == 1 and not status["llm"] and status["reason"].startswith("no LLM configured")
            body = _error(http.post("/api/digest/run", json={"rooms": [room]}), 409)
            assert body["field"] == "llm" and "no LLM configured" in body["detail"]
            assert _error(http.post("/api/digest/run", json={"rooms": [""]}), 400)["field"] == "rooms"
            assert any(r["room"] == room and r["messages"] == 1 for r in http.get("/api/rooms").json()["rooms"])
        assert len(mem.live_messages(room)) == 1
        with FakeOpenAIServer() as fake:
            fake.script("chat/completions", chat_content(json.dumps({"facts": [
                {"content": "David lives in Toulouse", "type": "fact", "subjects": ["david"], "ttl": None,
                 "scope": "global"}]})))
            extractor = FactExtractor("gpt-4o-mini", api_key=fake.api_key, base_url=fake.base_url,
                                      retry=RetryPolicy(max_attempts=1))
            app = create_app(mem, digester=mem.digester(extractor, DigestConfig(scope=scope)))
            with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as http:
                assert http.get("/api/digest", params={"room": room}).json()["due"] is True
                ran = http.post("/api/digest/run", json={"rooms": [room]}).json()
                assert ran["facts"] == 1 and ran["cleared"] == 1
                assert ran["digests"][0]["facts"] == ["David lives in Toulouse"]
                [listed] = http.get("/api/digests", params={"room": room}).json()["digests"]
                assert listed["state"] == "done" and listed["facts"] == ["David lives in Toulouse"]
        assert mem.live_messages(room) == []
        assert [f.content for f in mem.list_facts(scopes=[scope])] == ["David lives in Toulouse"]
    finally:
        support_db(database).write("testing/digest_cleanup", prefix=room)
        mem.deferred.close()
