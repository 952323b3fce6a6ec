"""Chat agents on the real server: conversations keyed by (agent, channel, user) with a session
gap, retrieval across channels (or restricted), live observation and its block, the memory tool
set (world, self, goals) with its schemas, and the companion's JSON reply protocol."""

from __future__ import annotations

import json
import re
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from graphmem import Database, GraphMemory
from graphmem.chat import MCP_TOOLS, TOOL_SPECS, ChatConfig, ChatTools, clear_live, parse_reply, store_reply
from graphmem.chat.model import DEFAULT_ROOT
from graphmem.embedding import LocalEmbedder
from graphmem.errors import InvalidInput
from graphmem.facts import delete_facts_under_path

from ..conftest import Neo4jTarget
from ..support import support_db
from .test_hooks import hook_env

pytestmark = pytest.mark.integration

T0 = datetime(2026, 1, 17, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


@pytest.fixture
def cmem(database: Database, namespace: str, embedder: LocalEmbedder) -> Iterator[GraphMemory]:
    """A memory whose chat conversations live under the test's namespace (cleaned up with it)."""
    mem = GraphMemory(database, embedder=embedder, chat=ChatConfig(root=namespace, timezone="Europe/Paris"))
    yield mem
    support_db(database).write("testing/chat_cleanup", prefix=namespace + "/")


@pytest.fixture
def room() -> Iterator[str]:
    name = f"lobby-{uuid.uuid4().hex[:10]}"
    yield name


def _clear(mem: GraphMemory, room: str) -> None:
    clear_live(mem.db, room)


# -- conversations ---------------------------------------------------------------------------------
def test_a_conversation_continues_its_session_until_a_gap(cmem: GraphMemory) -> None:
    first = cmem.open_conversation("pet", "discord", "david", at=T0)
    assert first.created
    same = cmem.open_conversation("pet", "discord", "david", at=T0 + timedelta(minutes=10))
    assert not same.created and same.session.id == first.session.id
    cmem.store_turn(first.session.id, "je pars en Grèce demain", "Super !", timestamp=T0 + timedelta(minutes=11))
    # activity moves the gap: 14 minutes after the turn is still the same session
    still = cmem.open_conversation("pet", "discord", "david", at=T0 + timedelta(minutes=25))
    assert still.session.id == first.session.id
    later = cmem.open_conversation("pet", "discord", "david", at=T0 + timedelta(minutes=45))
    assert later.created and later.session.id != first.session.id
    # another user, another channel: other conversations
    other_user = cmem.open_conversation("pet", "discord", "mickael", at=T0 + timedelta(minutes=45))
    other_channel = cmem.open_conversation("pet", "telegram", "david", at=T0 + timedelta(minutes=45))
    assert len({later.session.id, other_user.session.id, other_channel.session.id}) == 3
    sessions = cmem.conversation_sessions("pet", "discord", "david")
    assert [s.id for s in sessions] == [later.session.id, first.session.id]
    convs = cmem.conversations("pet")
    assert {(c.channel, c.user, c.sessions) for c in convs} == {
        ("discord", "david", 2), ("discord", "mickael", 1), ("telegram", "david", 1)}
    assert {(c.channel, c.user) for c in cmem.conversations("pet", user="david")} == {
        ("discord", "david"), ("telegram", "david")}


def test_the_session_gap_is_configurable(database: Database, namespace: str) -> None:
    mem = GraphMemory(database, chat=ChatConfig(root=namespace, session_gap=timedelta(hours=2)))
    try:
        a = mem.open_conversation("pet", "web", "ana", at=T0)
        b = mem.open_conversation("pet", "web", "ana", at=T0 + timedelta(minutes=90))
        c = mem.open_conversation("pet", "web", "ana", at=T0 + timedelta(hours=4))
        assert a.session.id == b.session.id != c.session.id
    finally:
        support_db(database).write("testing/chat_cleanup", prefix=namespace + "/")
    with pytest.raises(InvalidInput):
        ChatConfig(session_gap=timedelta(0))


def test_concurrent_first_messages_open_one_session(cmem: GraphMemory) -> None:
    ids: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def open_one() -> None:
        try:
            barrier.wait()
            ids.append(cmem.open_conversation("pet", "discord", "zoe", at=T0).session.id)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(ids)) == 1
    assert len(cmem.conversation_sessions("pet", "discord", "zoe")) == 1


def test_names_cannot_escape_their_folder(cmem: GraphMemory, namespace: str) -> None:
    s = cmem.open_conversation("pet", "../..", ".self", at=T0).session
    assert s.cwd.startswith(namespace + "/pet/") and s.project_path == f"{namespace}/pet"
    assert "/../" not in s.cwd and not s.cwd.endswith("/.self")


def test_chat_arguments_of_the_wrong_kind_are_one_line_naming_them(cmem: GraphMemory, room: str) -> None:
    # each of these crashed (AttributeError, TypeError, UnicodeEncodeError) or reached the server as a
    # Cypher type mismatch; the tool call is what a model sends, malformed JSON and all
    s = cmem.open_conversation("pet", "web", "alice", at=T0).session
    cases: list[tuple[Any, str]] = [
        (lambda: cmem.open_conversation("pet", "web", "alice", title=5), "^title must be a string"),
        (lambda: cmem.conversation_sessions("pet", "web", "alice", limit=""), "^limit must be an integer"),
        (lambda: cmem.conversations(None), "^invalid agent"),
        (lambda: cmem.conversations("pet", limit="\ud800"), "^limit must be an integer"),
        (lambda: cmem.search_conversations("x", "pet", k="ab"), "^k must be an integer"),
        (lambda: cmem.live_context(None, rooms=[room]), "^question must be a string"),
        (lambda: cmem.live_context("hello", limit=True), "^limit must be an integer"),
        (lambda: cmem.live_context("hello", rooms="a" * 5000), "^rooms must be a list of strings"),
        (lambda: cmem.live_messages(room, limit=""), "^limit must be an integer"),
        (lambda: cmem.chat_context(s.id, None), "^message must be a string"),  # type: ignore[arg-type]
    ]
    tools = cmem.chat_tools("pet")
    cases += [
        (lambda: tools.call("store_self", '{"content": "x"'), "^the arguments of store_self are not JSON"),
        (lambda: tools.call("store_self", {"content": "x"}), "^missing argument\\(s\\) for store_self: category"),
        (lambda: tools.call("search_goals", ""), "^missing argument\\(s\\) for search_goals: query"),
        (lambda: tools.call("search_goals", "[1]"), "^the arguments of search_goals must be a JSON object"),
    ]
    for call, message in cases:
        with pytest.raises(InvalidInput, match=message) as caught:
            call()
        assert "\n" not in str(caught.value) and len(str(caught.value)) < 300
    assert [x.id for x in cmem.conversation_sessions("pet", "web", "alice")] == [s.id]
    assert cmem.live_messages(room) == []


def test_retrieval_spans_channels_by_default_and_can_be_restricted(cmem: GraphMemory) -> None:
    tg = cmem.open_conversation("pet", "telegram", "david", at=T0).session
    cmem.store_turn(tg.id, "My brother lives in the Pyrenees, in a village called Ordizan",
                    "Noted, Ordizan in the Pyrenees.", timestamp=T0)
    dc = cmem.open_conversation("pet", "discord", "mickael", at=T0 + timedelta(hours=1)).session
    cmem.store_turn(dc.id, "I bought a new bike for the mountains", "Nice bike!", timestamp=T0 + timedelta(hours=1))
    cmem.embed_pending()
    cmem.await_text_index()

    everywhere = cmem.search_conversations("village in the Pyrenees", "pet", k=5)
    assert everywhere.hits and everywhere.hits[0].session_id == tg.id
    # no threshold: a restricted search still answers, from its channel / user only
    discord = cmem.search_conversations("village in the Pyrenees", "pet", channel="discord", k=5)
    assert {h.session_id for h in discord.hits} == {dc.id}
    by_user = cmem.search_conversations("village in the Pyrenees", "pet", user="david", k=5)
    assert [h.session_id for h in by_user.hits][:1] == [tg.id]
    one = cmem.search_conversations("village in the Pyrenees", "pet", channel="telegram", user="david", k=5)
    assert one.hits and {h.session_id for h in one.hits} == {tg.id}
    assert {h.session_id for h in cmem.search_conversations("village", "pet", user="mickael", k=5).hits} <= {dc.id}

    # the context of a discord conversation is enriched by what was said on telegram
    ctx = cmem.build_context(dc.id, "where does the brother live? which village?")
    assert "Ordizan" in ctx.text


# -- live observation --------------------------------------------------------------------------------
def test_observe_stores_each_message_and_embeds_it_later(cmem: GraphMemory, room: str) -> None:
    try:
        mid = cmem.observe(room, "david", "je pars en Grèce demain", T0 + timedelta(hours=1, minutes=23))
        stored = cmem.live_messages(room)
        assert [(m.id, m.author, m.room, m.text) for m in stored] == [(mid, "david", room, "je pars en Grèce demain")]
        rows = cmem.db.read("live/recent", room=room, limit=5)
        assert rows[0]["message"]["embedState"] == "pending"  # nothing slow on the write path
        ctx = cmem.live_context("où part David ?", rooms=[room])
        assert ctx.embedded >= 1
        assert cmem.db.read("live/recent", room=room, limit=5)[0]["message"]["embedState"] == "done"
        assert [m.id for m in ctx.messages] == [mid]
    finally:
        _clear(cmem, room)


def test_live_block_has_the_most_relevant_messages_in_seed_format(cmem: GraphMemory, room: str) -> None:
    chatter = ["ok", "lol", "mdr", "bonne nuit", "quelqu'un a vu le match hier ?", "il pleut encore",
               "j'ai fini mon rapport", "on mange quoi ce soir ?", "pizza !", "trop bien", "ça marche",
               "à demain", "le chat a encore vomi"]
    try:
        for i, text in enumerate(chatter):
            cmem.observe(room, "alice", text, T0 + timedelta(minutes=i))
        cmem.observe(room, "david", "je pars en Grèce demain", T0 + timedelta(hours=1, minutes=23))
        cmem.observe(room, "david", "une semaine en Grèce, à Athènes", T0 + timedelta(hours=1, minutes=48))
        fr = GraphMemory(cmem.db, embedder=cmem.embedder,
                         chat=ChatConfig(root=cmem.chat.root, timezone="Europe/Paris", locale="fr"))
        ctx = fr.live_context("David part où en vacances ?", rooms=[room])
        assert len(ctx.messages) == 10
        assert ctx.messages[0].text == "je pars en Grèce demain"
        assert "une semaine en Grèce, à Athènes" in {m.text for m in ctx.messages[:3]}
        scores = [m.score or 0.0 for m in ctx.messages]
        assert scores == sorted(scores, reverse=True)  # by relevance, not by time
        lines = ctx.text.splitlines()
        assert lines[0] == f"[Contexte live - extraits pertinents de {room}, pas une conversation complète]"
        # 10:23 UTC is 11:23 in Paris in January
        assert "• david (17/01 11:23) : je pars en Grèce demain" in lines
        en = cmem.live_context("Where is David going?", rooms=[room], limit=3)
        assert en.text.startswith(f"[Live context - relevant excerpts from {room}, not a full conversation]")
        assert len(en.messages) == 3
        other = cmem.live_context("Grèce", rooms=[f"{room}-other"])
        assert not other.messages and other.text == ""
    finally:
        _clear(cmem, room)


def test_chat_context_puts_the_live_block_apart_from_facts(cmem: GraphMemory, room: str) -> None:
    try:
        cmem.observe(room, "david", "je pars en Grèce demain", T0)
        session = cmem.open_conversation("pet", "web", "mickael", at=T0 + timedelta(hours=1)).session
        tools = cmem.chat_tools("pet")
        tools.store_memory("David est le frère de Mickael", ["david", "mickael"], None)
        ctx = cmem.chat_context(session.id, "Où est David ?", rooms=[room])
        assert ctx.live.messages and ctx.live.messages[0].text == "je pars en Grèce demain"
        text = ctx.text
        assert text.index("[Live context") < text.index("Known Facts")
        live_part = text[: text.index("Known Facts")]
        assert "frère" not in live_part  # facts stay in their own block
        assert "David est le frère de Mickael" in text[text.index("Known Facts"):]
    finally:
        _clear(cmem, room)


# -- memory tools ----------------------------------------------------------------------------------------
def test_tool_schemas_for_openai_and_anthropic() -> None:
    names = ["search_memories", "get_recent_memories", "store_memory", "search_memories_text", "forget",
             "search_self", "store_self", "search_goals", "store_goal"]
    openai = ChatTools.openai()
    assert [t["function"]["name"] for t in openai] == names
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in openai)
    anthropic = ChatTools.anthropic()
    assert [t["name"] for t in anthropic] == names
    by = {t["name"]: t["input_schema"] for t in anthropic}
    assert by["get_recent_memories"]["properties"]["limit"]["maximum"] == 20
    assert by["store_self"]["properties"]["category"]["enum"] == [
        "context", "capability", "limitation", "preference", "relation"]
    assert by["store_goal"]["properties"]["category"]["enum"] == ["capability_request", "understanding", "connection"]


def test_memory_tools_keep_world_self_and_goals_apart(cmem: GraphMemory) -> None:
    tools = cmem.chat_tools("pet")
    assert tools.call("store_memory", {"content": "Mickael s'est cassé l'épaule", "subjects": ["mickael", "blessure"],
                                       "ttl": None})["action"] == "inserted"
    tools.call("store_memory", '{"content": "Mickael est malade", "subjects": ["mickael"], "ttl": "7d"}')
    tools.call("store_self", {"content": "Je suis un petit chat virtuel qui vit dans un salon Discord",
                              "category": "context"})
    tools.call("store_goal", {"content": "Comprendre les règles du rugby dont Mickael parle souvent",
                              "category": "understanding"})

    world = tools.call("search_memories", {"query": "Mickael"})
    contents = [m["content"] for m in world["memories"]]
    assert set(contents) == {"Mickael s'est cassé l'épaule", "Mickael est malade"}
    assert all(m["score"] is not None and m["when"] for m in world["memories"])
    assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d, .+", world["memories"][0]["when"])
    malade = next(m for m in world["memories"] if m["content"] == "Mickael est malade")
    assert malade["expires_at"] is not None

    me = tools.call("search_self", {"query": "qui es-tu ?"})
    assert [(m["content"], m["category"]) for m in me["memories"]] == [
        ("Je suis un petit chat virtuel qui vit dans un salon Discord", "context")]
    goals = tools.call("search_goals", {"query": "rugby"})
    assert [m["category"] for m in goals["memories"]] == ["understanding"]
    # injection into conversations sees world facts only
    session = cmem.open_conversation("pet", "discord", "mickael", at=T0).session
    inj = cmem.inject_facts(session.id, "qui es-tu, petit chat ? et le rugby ?")
    injected = {i.fact.content for i in inj.items}
    assert "Je suis un petit chat virtuel qui vit dans un salon Discord" not in injected
    assert not any("rugby" in c for c in injected)

    recent = tools.call("get_recent_memories", {"limit": 1})
    assert recent["count"] == 1 and recent["memories"][0]["content"] == "Mickael est malade"
    with pytest.raises(InvalidInput):
        tools.call("get_recent_memories", {"limit": 21})
    with pytest.raises(InvalidInput):
        tools.call("store_self", {"content": "x", "category": "world"})
    with pytest.raises(InvalidInput):
        tools.call("search_memories", {"query": "x", "scope": "all"})

    text = tools.call("search_memories_text", {"query": "épaule cassée"})
    assert [m["content"] for m in text["memories"]] == ["Mickael s'est cassé l'épaule"]
    gone = tools.call("forget", {"topic": "blessure"})
    assert gone["count"] >= 1
    assert "Mickael s'est cassé l'épaule" not in {
        m["content"] for m in tools.call("search_memories", {"query": "épaule"})["memories"]}
    # another agent sees none of it
    assert not cmem.chat_tools("other-pet").call("search_memories", {"query": "Mickael"})["memories"]


def test_similar_memory_is_updated_not_duplicated(cmem: GraphMemory) -> None:
    tools = cmem.chat_tools("pet")
    tools.store_memory("Mickael s'est cassé l'épaule", ["mickael", "blessure"])
    second = tools.store_memory("Mickael s'est cassé l'épaule le 10 janvier 2026", ["mickael", "blessure"])
    assert second["action"] == "updated" and second["previous"] == "Mickael s'est cassé l'épaule"
    found = tools.search_memories("épaule de Mickael")["memories"]
    assert [m["content"] for m in found if "épaule" in m["content"]] == ["Mickael s'est cassé l'épaule le 10 janvier 2026"]


def test_json_reply_protocol_is_parsed_and_stored(cmem: GraphMemory) -> None:
    tools = cmem.chat_tools("pet")
    reply = store_reply(tools, '```json\n{"message": "Repose-toi bien !", "memories": ['
                               '{"content": "Mickael est malade", "subjects": ["mickael", "santé"], "ttl": "7d"},'
                               '{"content": "Bad ttl", "subjects": [], "ttl": "soon"}]}\n```')
    assert reply.structured and reply.message == "Repose-toi bien !"
    assert [s["action"] for s in reply.stored] == ["inserted", "error"]
    assert [m["content"] for m in tools.get_recent_memories(5)["memories"]] == ["Mickael est malade"]
    plain = parse_reply("Coucou Mickael !")
    assert not plain.structured and plain.message == "Coucou Mickael !" and not plain.memories


def test_memory_tools_over_mcp(neo4j_target: Neo4jTarget, database: Database, tmp_path: Path) -> None:
    """``graphmem mcp`` serves the chat tools when GRAPHMEM_CHAT_AGENT names the agent."""
    mcp_client = pytest.importorskip("mcp.client.session")
    mcp_stdio = pytest.importorskip("mcp.client.stdio")
    agent = f"pet-{uuid.uuid4().hex[:10]}"
    env = hook_env(neo4j_target, tmp_path / "gh", GRAPHMEM_EMBEDDER="local", GRAPHMEM_CHAT_AGENT=agent)
    params = mcp_stdio.StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from graphmem.cli import main; sys.exit(main())", "mcp"],
        env=env, cwd=str(tmp_path),
    )

    def payload(result: Any) -> dict[str, Any]:
        assert not result.is_error, result
        structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
        return dict(structured) if structured else dict(json.loads(result.content[0].text))

    async def drive() -> None:
        async with mcp_stdio.stdio_client(params) as (read, write), mcp_client.ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert set(MCP_TOOLS) <= names and not {t.name for t in TOOL_SPECS} & names  # all named chat_*
            stored = payload(await session.call_tool("chat_store_memory", {
                "content": "David habite à Ordizan", "subjects": ["david"], "ttl": None}))
            assert stored["action"] == "inserted"
            payload(await session.call_tool("chat_store_self", {"content": "Je suis un chat", "category": "context"}))
            found = payload(await session.call_tool("chat_search_memories", {"query": "où habite David"}))
            assert [m["content"] for m in found["memories"]] == ["David habite à Ordizan"]
            me = payload(await session.call_tool("chat_search_self", {"query": "qui suis-je"}))
            assert [m["content"] for m in me["memories"]] == ["Je suis un chat"]

    try:
        anyio.run(drive)
    finally:
        delete_facts_under_path(database, f"{DEFAULT_ROOT}/{agent}")


def test_a_correction_retires_the_old_fact_and_keeps_it_as_history(cmem: GraphMemory) -> None:
    tools = cmem.chat_tools("pet")
    tools.store_memory("David est le frère de Mickael", ["david", "mickael"])
    first = tools.store_memory("David habite à Ordizan", ["david"])
    assert first["action"] == "inserted" and first["retired"] == []
    between = datetime.now(UTC)
    second = tools.store_memory("Non en fait David a déménagé à Toulouse", ["david"])
    assert second["retired"] == ["David habite à Ordizan"]

    world = tools.world
    current = {f.content for f in cmem.facts_about("david", scopes=[world])}
    assert current == {"David est le frère de Mickael", "Non en fait David a déménagé à Toulouse"}
    found = [m["content"] for m in tools.search_memories("où habite David ?")["memories"]]
    assert "David habite à Ordizan" not in found and "Non en fait David a déménagé à Toulouse" in found
    # history: what was true then, and now
    then = {f.content for f in cmem.facts_as_of(between, scopes=[world], subject="david")}
    assert then == {"David est le frère de Mickael", "David habite à Ordizan"}
    now = {f.content for f in cmem.facts_as_of(datetime.now(UTC), scopes=[world], subject="david")}
    assert now == current
    # another person's move retires nothing of David's; an unrelated kind neither
    assert tools.store_memory("Julie habite à Lyon", ["julie"])["retired"] == []
    assert tools.store_memory("David travaille chez Airbus", ["david"])["retired"] == []
    assert tools.store_memory("David works at Thales now", ["david"])["retired"] == ["David travaille chez Airbus"]


def test_explore_queries_show_conversations_and_live_messages(cmem: GraphMemory, room: str) -> None:
    agent = f"pet-{uuid.uuid4().hex[:8]}"
    s = cmem.open_conversation(agent, "discord", "david", at=T0).session
    cmem.store_turn(s.id, "salut", "coucou", timestamp=T0)
    rows = cmem.db.read("explore/agent_conversations", agent=agent)
    assert [(r["channel"], r["user"], r["session"], r["turns"]) for r in rows] == [("discord", "david", s.id, 1)]
    try:
        cmem.observe(room, "david", "je pars en Grèce demain", T0)
        cmem.observe(room, "julie", "bon voyage !", T0 + timedelta(minutes=1))
        rows = cmem.db.read("explore/room_live_messages", room=room)
        assert [(r["author"], r["embedState"]) for r in rows] == [("julie", "pending"), ("david", "pending")]
    finally:
        _clear(cmem, room)
