"""The memory dashboard (``/memory``) in a real headless Chromium, against the real Neo4j.

Goes through each section: adds a fact, edits it inline, searches it semantically and by text,
moves the auto-retrieval sliders and sees the next injection (made by an agent, outside the page)
follow them through the live event stream, opens a session's timeline with its summary levels,
reads the stats. Saves a screenshot of each section under ``artifacts/service-*.png`` (the ones in
``docs/screenshots/`` come from this test).
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="needs the service extra (fastapi, uvicorn)")

from graphmem import Database, GraphMemory
from graphmem.embedding import LocalEmbedder
from graphmem.facts import FactScope, inject_facts
from graphmem.notes import NotesConfig, vault_key
from graphmem.service import create_app, serve_in_thread
from graphmem.worker import WorkerConfig

from ..support import support_db
from .test_browser import ARTIFACTS, Chromium

pytestmark = pytest.mark.integration


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Chromium]:
    """Headless Chromium (the flags of test_browser) with a fresh profile."""
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("needs Debian's chromium (apt-get install -y chromium)")
    pytest.importorskip("websocket", reason="needs websocket-client (the dev extra)")
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    c = Chromium(profile)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def restore_settings(database: Database) -> Iterator[None]:
    from graphmem.facts.tuning import TUNING_HELP, set_tuning, unset_tuning

    before = {r["key"]: r["value"] for r in database.read("tuning/all") if r["key"] in TUNING_HELP}
    yield
    for key in TUNING_HELP:
        if key in before:
            set_tuning(database, key, before[key])
        else:
            unset_tuning(database, key)


def _shot(c: Chromium, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    c.screenshot(ARTIFACTS / f"service-{name}.png")


def _select_text(c: Chromium, selector: str) -> None:
    """Focus an element and select its whole content (a contenteditable cell or an input)."""
    c.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)}); e.focus();
        if (e.select) {{ e.select(); return; }}
        const r = document.createRange(); r.selectNodeContents(e);
        const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); }})()""")


def _slide(c: Chromium, selector: str, value: float) -> None:
    c.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = {json.dumps(str(value))};
        e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); }})()""")


def test_dashboard_sections(page: Chromium, database: Database, namespace: str, tmp_path: Path,
                            restore_settings: None) -> None:
    embedder = LocalEmbedder()
    vault = tmp_path / "vault"
    (vault / "team").mkdir(parents=True)
    (vault / "Release rules.md").write_text("# Release rules\nEvery release goes through QA; hotfixes too.\n")
    (vault / "team" / "On-call.md").write_text("---\ntags: [memory, team]\n---\nThe on-call lead this week is Sam.\n")
    (vault / "Groceries.md").write_text("milk, eggs\n")  # no tag: not synced
    mem = GraphMemory(database, embedder=embedder, notes=NotesConfig(vault, fixed=("Release rules.md",)))
    tag = uuid.uuid4().hex[:8]
    proj = f"{namespace}/dash"
    session = mem.create_session(proj, project_path=proj, agent="claude-code", title="release planning")
    for i, (user, assistant) in enumerate([
        ("When does the release train leave?", "Every Tuesday at 10:00, from the release branch."),
        ("Which tests gate the release?", "The integration suite and the browser test."),
        ("Who approves a hotfix?", "The on-call lead, then QA signs off."),
        ("Can we skip QA for a typo fix?", "No: every release goes through QA."),
    ]):
        mem.store_turn(session.id, f"{user} ({i})", assistant * 3)
    mem.worker(config=WorkerConfig(batch_chars=0)).run_until_idle()
    # six rules distinct in meaning (pairwise cosine well under the 0.85 dedup threshold), so the
    # injection's meaning dedup keeps each of them
    for rule in ("Hotfix branches ({tag}) are cut from the release branch, never from main",
                 "The on-call lead ({tag}) deploys every hotfix to production",
                 "QA ({tag}) signs off a hotfix before it is deployed",
                 "Deploys ({tag}) are frozen on Friday afternoons",
                 "A hotfix release ({tag}) gets a patch version bump and a changelog line",
                 "Rollbacks ({tag}) of a hotfix deploy are run by the release manager"):
        mem.remember(rule.format(tag=tag), scope=FactScope.project(proj), type="decision")
    mem.embed_pending()
    mem.await_text_index()

    c = page
    with serve_in_thread(create_app(mem)) as url:
        c.call("Page.enable")
        c.call("Page.navigate", url=f"{url}/memory#facts")
        c.wait("document.querySelector('#live')?.textContent === 'live'", "the live event stream")

        # facts: add, then edit inline
        content = f"The release train ({tag}) leaves every Tuesday at 10:00"
        c.type_into("#fact-content", content)
        _select_text(c, "#fact-scope")
        c.call("Input.insertText", text=f"project:{proj}")
        c.js("document.querySelector('#fact-add').click()")
        row = f"Array.from(document.querySelectorAll('#fact-rows tr')).find(r => r.innerText.includes({json.dumps(content)}))"
        c.wait(f"!!{row}", "the added fact in the list")
        old_id = c.js(f"{row}.dataset.id")
        edited = f"The release train ({tag}) leaves every Wednesday at 09:30"
        _select_text(c, f"#fact-rows tr[data-id='{old_id}'] .fact-content")
        c.call("Input.insertText", text=edited)
        c.js(f"document.querySelector(\"#fact-rows tr[data-id='{old_id}'] .fact-save\").click()")
        new_row = f"Array.from(document.querySelectorAll('#fact-rows tr')).find(r => r.innerText.includes({json.dumps(edited)}))"
        c.wait(f"!!{new_row} && !document.querySelector(\"#fact-rows tr[data-id='{old_id}']\")", "the edited fact")
        assert mem.list_facts(scopes=[f"project:{proj}"], limit=100)[0].content == edited
        _shot(c, "facts")

        # search: semantic, then text
        c.js("location.hash = '#search'")
        c.type_into("#search-q", f"release train {tag} Wednesday")
        c.js("document.querySelector('#search-go').click()")
        hit = ("Array.from(document.querySelectorAll('#search-rows tr.hit')).find(r => r.dataset.mode === '{mode}' "
               f"&& r.dataset.kind === 'fact' && r.innerText.includes({json.dumps(edited)}))")
        c.wait(f"!!{hit.format(mode='semantic')}", "the fact found semantically")
        score = c.js(f"{hit.format(mode='semantic')}.cells[0].innerText")
        assert 0.0 < float(score) <= 1.0
        assert c.js(f"{hit.format(mode='semantic')}.cells[2].innerText") == f"project:{proj}"
        _shot(c, "search")
        _select_text(c, "#search-q")
        c.call("Input.insertText", text=f"train ({tag}) leaves every Wednesday")
        c.js("document.querySelector(\"#search-mode button[data-mode='text']\").click()")
        c.wait(f"!!{hit.format(mode='text')}", "the fact found by text")

        # auto-retrieval: the sliders write the settings; the next injection follows them
        c.js("location.hash = '#retrieval'")
        c.wait("document.querySelector('#inj-max').value !== ''", "the settings")
        saved = int(c.js("window.graphmemDashboard.saved || 0"))
        _slide(c, "#inj-min", 0.35)
        c.wait(f"(window.graphmemDashboard.saved || 0) > {saved}", "the minimum score saved")
        _slide(c, "#inj-max", 1)
        c.wait(f"(window.graphmemDashboard.saved || 0) > {saved + 1}", "the max results saved")
        settings = mem.db.read("tuning/all")
        stored = {r["key"]: r["value"] for r in settings}
        assert stored["injection.max_results"] == 1 and stored["injection.min_score"] == 0.35

        def injection(most: int, least: int) -> None:
            done = inject_facts(mem.db, session.id, "who deploys a hotfix from the release branch?",
                                embedder=mem.embedder, deferred=None)
            count = len(done.items)
            assert done.log_id and least <= count <= most, done
            c.wait(f"document.querySelector(\"#retrieval-rows tr.injection[data-id='{done.log_id}']\")"
                   f"?.dataset.count === '{count}'", f"the injection of {count} facts, live")

        injection(1, 1)
        _slide(c, "#inj-max", 3)
        c.wait(f"(window.graphmemDashboard.saved || 0) > {saved + 2}", "the max results saved again")
        # up to 3 now: the fact injected just before is held back by the dedup window, and the six
        # other recent facts are candidates whatever their score, so exactly 3 go in
        injection(3, 3)
        _shot(c, "retrieval")

        # sessions: the timeline with the summary levels above the turns
        c.js("location.hash = '#sessions'")
        c.wait(f"!!document.querySelector(\"#session-rows tr[data-id='{session.id}']\")", "the session in the list")
        c.js(f"document.querySelector(\"#session-rows tr[data-id='{session.id}']\").click()")
        c.wait("document.querySelectorAll('#timeline .turn').length === 4 && "
               "document.querySelectorAll('#timeline .summary').length > 0", "the session's timeline")
        assert c.js("document.querySelector('#timeline .summary').dataset.level") is not None
        _shot(c, "sessions")

        # notes: sync the vault, the fixed note first with its preview
        c.js("location.hash = '#notes'")
        c.wait("document.querySelector('#notes-config').innerText.includes('#memory')", "the vault's settings")
        c.js("document.querySelector('#notes-sync').click()")
        # the worker run above synced them already (its periodic cleanup): nothing changed since
        c.wait("document.querySelector('#notes-synced').innerText.includes('2 unchanged')", "the sync's answer")
        c.wait("document.querySelectorAll('#note-rows tr').length === 2", "the synced notes")
        first = c.js("document.querySelector('#note-rows tr').innerText")
        assert "Release rules" in first and "fixed" in first and "goes through QA" in first
        _shot(c, "notes")

        # stats
        c.js("location.hash = '#stats'")
        c.wait("document.querySelectorAll('#stat-cards .stat').length === 8", "the stats")
        assert "injections" in c.js("document.querySelector('#stat-injections').innerText")
        _shot(c, "stats")
        assert c.js("document.querySelector('#error').textContent") == ""
    mem.deferred.close()
    support_db(database).write("testing/notes_cleanup", vault=vault_key(vault))
