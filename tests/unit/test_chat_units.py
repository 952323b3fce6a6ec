"""Chat agents without a server: times as the agent reads them, names as path components, the
JSON reply protocol, the live block's format and the tool schemas."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from graphmem.chat import ChatConfig, ChatTools, LiveMessage, parse_reply, render_live
from graphmem.chat.model import conversation_path, encode_name
from graphmem.errors import InvalidInput
from graphmem.facts import Fact, render_facts
from graphmem.facts.model import InjectedItem
from graphmem.retrieval.reltime import absolute_time, memory_time, relative_time

NOW = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)


def test_memory_time_is_absolute_and_relative_by_locale() -> None:
    ts = NOW - timedelta(days=3, hours=1, minutes=37)
    assert memory_time(ts, NOW, "en") == "17/01/2026 10:23, 3 days ago"
    assert memory_time(ts, NOW, "fr") == "17/01/2026 10:23, il y a 3 jours"
    assert memory_time(ts, NOW, "fr", ZoneInfo("Europe/Paris")) == "17/01/2026 11:23, il y a 3 jours"
    assert absolute_time(ts, ZoneInfo("Europe/Paris"), year=False) == "17/01 11:23"
    assert relative_time(NOW - timedelta(days=1, hours=2), NOW, "fr") == "hier"
    assert relative_time(NOW + timedelta(hours=2), NOW, "en") == "in 2 hours"


def test_injected_facts_carry_their_time() -> None:
    fact = Fact(id="f1", content="David habite à Toulouse", type="fact", importance=0.6, scope="global",
                scope_key="global", created_at=NOW - timedelta(days=10), updated_at=NOW - timedelta(days=3))
    text = render_facts([InjectedItem(fact, "vector", 0.9)], now=NOW, locale="fr")
    assert text.splitlines()[1] == "- (fact) David habite à Toulouse (17/01/2026 12:00, il y a 3 jours)"
    text = render_facts([InjectedItem(fact, "vector", 0.9)], now=NOW, locale="en")
    assert text.splitlines()[1].endswith("(17/01/2026 12:00, 3 days ago)")


def test_names_are_path_components() -> None:
    assert encode_name("lobby", "channel") == "lobby"
    assert encode_name("../x", "channel") == "%2E%2E%2Fx"
    assert encode_name(".self", "user") == "%2Eself"
    assert conversation_path("/r", "pet", "#général", "Dav id") == "/r/pet/%23g%C3%A9n%C3%A9ral/Dav%20id"
    with pytest.raises(InvalidInput):
        encode_name("  ", "user")
    with pytest.raises(InvalidInput):
        ChatConfig(timezone="Mars/Olympus")


def test_live_block_format() -> None:
    msgs = [LiveMessage("1", "lobby", "david", "je pars en Grèce demain", datetime(2026, 1, 17, 9, 23, tzinfo=UTC)),
            LiveMessage("2", "lobby", "david", "une semaine", datetime(2026, 1, 17, 9, 48, tzinfo=UTC))]
    fr = render_live(msgs, ["lobby"], ChatConfig(locale="fr", timezone="Europe/Paris"))
    assert fr.splitlines() == [
        "[Contexte live - extraits pertinents de lobby, pas une conversation complète]",
        "• david (17/01 10:23) : je pars en Grèce demain",
        "• david (17/01 10:48) : une semaine",
    ]
    assert render_live([], ["lobby"], ChatConfig()) == ""


def test_reply_protocol() -> None:
    r = parse_reply('{"message": "Ah mince !", "memories": [{"content": "Mickael s\'est cassé l\'épaule",'
                    ' "subjects": ["mickael", "blessure"], "ttl": null}, {"content": ""}, "junk"]}')
    assert r.structured and r.message == "Ah mince !"
    assert [(m.content, m.subjects, m.ttl) for m in r.memories] == [
        ("Mickael s'est cassé l'épaule", ["mickael", "blessure"], None)]
    r = parse_reply('Voilà : {"message": "ok", "memories": []} fin')
    assert r.structured and r.message == "ok"
    r = parse_reply('{"not": "the protocol"}')
    assert not r.structured and r.message == '{"not": "the protocol"}'


def test_tool_schemas_are_json_schemas() -> None:
    for tool in ChatTools.openai():
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and set(params["required"]) <= set(params["properties"])
    assert {t["name"] for t in ChatTools.anthropic()} >= {"search_memories", "store_goal"}
