"""Summarizers: extractive (offline, deterministic), OpenAI over real HTTP to a local fake server, fallback."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.errors import InvalidInput, ProviderError
from graphmem.models import ConversationSummary, ToolCall, ToolCallIn, Turn, TurnIn
from graphmem.providers import (
    ExtractiveSummarizer,
    FallbackSummarizer,
    OpenAISummarizer,
    RetryPolicy,
    Summarizer,
    SummaryResult,
    ToolCallForSummary,
    TurnForSummary,
    make_summarizer,
)
from graphmem.providers.openai_summarizer import summary_json_schema
from graphmem.providers.pricing import estimate_cost, price_for
from graphmem.providers.text import extract_paths, extract_paths_from_args, split_sentences, word_tokens
from tests.fake_openai import (
    DEFAULT_SUMMARY,
    FakeOpenAIServer,
    Reply,
    bad_request,
    chat_content,
    rate_limited,
    refusal,
    server_error,
    stall,
    unauthorized,
)

FAST = RetryPolicy(max_attempts=4, initial_backoff=0.01, max_backoff=0.05)

# --------------------------------------------------------------------------------------------
# realistic turns (~1-3 KB each), English and French
# --------------------------------------------------------------------------------------------

_EN_TOPICS = [
    ("the Neo4j connection", "graphmem/db/connect.py", "the driver connected before the Bolt port was open"),
    ("the vector index", "cypher/schema/0023_turn_embedding.cypher", "the index was created with 384 dimensions"),
    ("the CLI import command", "graphmem/cli/main.py", "the JSONL reader skipped lines with a BOM"),
    ("the summary roll-up", "graphmem/memory.py", "the threshold compared characters with tokens"),
    ("the embedding worker", "graphmem/worker.py", "pending turns were never marked as done"),
]

_FR_TOPICS = [
    ("la connexion à Neo4j", "graphmem/db/connect.py", "le pilote se connectait avant l'ouverture du port Bolt"),
    ("l'index vectoriel", "cypher/schema/0023_turn_embedding.cypher", "l'index avait été créé avec 384 dimensions"),
    ("la commande d'import", "graphmem/cli/main.py", "le lecteur JSONL ignorait les lignes avec un BOM"),
]


def en_turn(i: int) -> TurnForSummary:
    subject, path, cause = _EN_TOPICS[i % len(_EN_TOPICS)]
    user = (
        f"I keep seeing failures around {subject} when I run the integration tests on CI (run #{i}). "
        f"Can you look at {path} and tell me what is going on? The logs show a timeout after thirty "
        "seconds, and sometimes a ServiceUnavailable error. It only happens on the slow runners, never "
        "locally, which makes me think it is a race. Please keep the public API unchanged."
    )
    assistant = (
        f"I read {path} and the test logs. The root cause is that {cause}. "
        "That explains why it only fails on the slow runners: the window is a few hundred milliseconds. "
        f"I fixed it in {path} by waiting for the condition explicitly and retrying with a bounded "
        "exponential backoff, because a fixed sleep would either be too short on CI or waste time locally. "
        "I also added a regression test in tests/integration/test_regressions.py that reproduces the race "
        "with an artificial delay.\n\n"
        "```python\n"
        "for attempt in range(10):\n"
        "    try:\n"
        "        return connect()\n"
        "    except ServiceUnavailable:\n"
        "        time.sleep(min(2 ** attempt * 0.1, 2.0))\n"
        "```\n\n"
        "We decided to keep the timeout configurable through GRAPHMEM_CONNECT_TIMEOUT. "
        "The full test suite passes now, including the integration tests against Neo4j 5.26 and 2026.08. "
        "One open question remains: whether the same retry should apply to the managed server start."
    )
    calls = (
        ToolCallForSummary(
            "Read", {"file_path": f"/work/main/{path}"}, "     1\tfrom __future__ import annotations\n" * 8
        ),
        ToolCallForSummary(
            "Bash",
            {"command": "pytest tests/integration -q -x"},
            "FAILED tests/integration/test_db.py::test_connect - neo4j.exceptions.ServiceUnavailable: "
            "Couldn't connect to localhost:7687\n1 failed, 41 passed in 12.3s",
            False,
        ),
        ToolCallForSummary(
            "Edit", {"file_path": f"/work/main/{path}", "old_string": "x", "new_string": "y"}, "ok", True
        ),
        ToolCallForSummary("Bash", {"command": "pytest -q"}, "42 passed in 14.1s", True),
    )
    return TurnForSummary(user, assistant, calls, index=i + 1)


def fr_turn(i: int) -> TurnForSummary:
    subject, path, cause = _FR_TOPICS[i % len(_FR_TOPICS)]
    user = (
        f"Les tests d'intégration échouent encore autour de {subject} sur la CI (exécution n°{i}). "
        f"Peux-tu regarder le fichier {path} et m'expliquer ce qui se passe ? Les journaux montrent un "
        "dépassement de délai après trente secondes. Cela n'arrive que sur les machines lentes."
    )
    assistant = (
        f"J'ai lu {path} et les journaux de test. La cause est que {cause}. "
        "Cela explique pourquoi l'échec n'apparaît que sur les machines lentes de la CI. "
        f"J'ai corrigé le problème dans {path} en attendant explicitement la condition, parce qu'une "
        "pause fixe serait soit trop courte sur la CI, soit trop longue en local. "
        "Nous avons décidé de garder le délai configurable avec GRAPHMEM_CONNECT_TIMEOUT. "
        "Toute la suite de tests passe maintenant, y compris les tests d'intégration."
    )
    calls = (
        ToolCallForSummary("Bash", {"command": "pytest tests/integration -q"}, "Erreur : délai dépassé", False),
        ToolCallForSummary("Edit", {"file_path": path}, "ok", True),
    )
    return TurnForSummary(user, assistant, calls, index=i + 1)


def test_realistic_turns_have_the_intended_size() -> None:
    sizes = [len(t.user_message) + len(t.assistant_message) for t in map(en_turn, range(5))]
    assert all(1000 <= s <= 3000 for s in sizes), sizes


# --------------------------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("edit src/a.py and ./x/y.ts, then /abs/path.rs.", ["src/a.py", "./x/y.ts", "/abs/path.rs"]),
        (r"open C:\Users\bob\proj\main.cs and src\win\util.py", [r"C:\Users\bob\proj\main.cs", r"src\win\util.py"]),
        ("see README.md, Makefile and ~/notes/todo.txt", ["README.md", "Makefile", "~/notes/todo.txt"]),
        ("tests/unit/test_x.py:42:7: E501 and graphmem/text.py#L10", ["tests/unit/test_x.py", "graphmem/text.py"]),
        ("https://github.com/a/b.py and/or TCP/IP 2024/01/02 1/2 e.g. node.js os.path v1.2.3", []),
        (
            "`graphmem/cli/main.py` (see [docs](docs/index.md)) **pyproject.toml**",
            ["graphmem/cli/main.py", "docs/index.md", "pyproject.toml"],
        ),
        ("src/a.py then ./src/a.py again, and .gitignore", ["src/a.py", ".gitignore"]),
        (
            "J'ai corrigé src/module/fichier.py ; voir ~/projets/app/config.toml.",
            ["src/module/fichier.py", "~/projets/app/config.toml"],
        ),
    ],
)
def test_extract_paths(text: str, expected: list[str]) -> None:
    assert extract_paths(text) == expected


def test_extract_paths_from_json_args() -> None:
    args = json.dumps({"file_path": r"C:\Users\x\a.py", "edits": [{"path": "src/b.ts"}], "n": 3})
    assert extract_paths_from_args(args) == [r"C:\Users\x\a.py", "src/b.ts"]
    assert extract_paths_from_args({"cmd": "cat /etc/hosts"}) == ["/etc/hosts"]
    assert extract_paths_from_args(None) == []


def test_sentence_split_and_french_tokens() -> None:
    assert split_sentences("Hello world. See e.g. this one! Next?\n- a bullet item") == [
        "Hello world.",
        "See e.g. this one!",
        "Next?",
        "a bullet item",
    ]
    assert word_tokens("J'ai corrigé l'erreur qu'il a vue") == ["ai", "corrigé", "erreur", "il", "a", "vue"]


# --------------------------------------------------------------------------------------------
# extractive
# --------------------------------------------------------------------------------------------


def test_extractive_is_deterministic() -> None:
    turns = [en_turn(i) for i in range(6)]
    a = ExtractiveSummarizer().summarize(turns)
    b = ExtractiveSummarizer().summarize(list(turns))
    assert a == b
    assert a.summary.model_dump_json() == b.summary.model_dump_json()
    assert a.method == "extractive" and a.model == "textrank-v1"
    assert a.prompt_tokens is None and a.completion_tokens is None and a.cost_usd is None


def test_extractive_fields() -> None:
    result = ExtractiveSummarizer().summarize([en_turn(0), en_turn(1)])
    s = result.summary
    assert 0 < len(s.summary) <= 600
    assert s.tools_used == ["Read", "Bash", "Edit"]
    assert s.files_mentioned[:3] == [
        "graphmem/db/connect.py",
        "/work/main/graphmem/db/connect.py",
        "tests/integration/test_regressions.py",
    ]
    assert "cypher/schema/0023_turn_embedding.cypher" in s.files_mentioned
    assert "tests/integration/test_db.py" in s.files_mentioned  # from a tool result, listed last
    assert s.files_mentioned.index("tests/integration/test_db.py") > s.files_mentioned.index(
        "cypher/schema/0023_turn_embedding.cypher"
    )
    assert len(s.files_mentioned) == len(set(s.files_mentioned))
    assert any("root cause" in f for f in s.key_findings)
    assert any(f.startswith("Bash failed: ") and "ServiceUnavailable" in f for f in s.key_findings)
    assert 0 < len(s.key_findings) <= 5
    assert 0 < len(s.topics) <= 6
    assert not {"the", "and", "that", "which"} & {t.lower() for t in s.topics}


def test_extractive_caps_are_configurable() -> None:
    turns = [en_turn(i) for i in range(4)]
    s = ExtractiveSummarizer(max_sentences=1, max_chars=120, max_findings=2, max_topics=3).summarize(turns).summary
    assert len(s.summary) <= 120
    assert len(split_sentences(s.summary)) <= 1 or s.summary.endswith("…")
    assert len(s.key_findings) <= 2 and len(s.topics) <= 3


def test_extractive_french() -> None:
    s = ExtractiveSummarizer().summarize([fr_turn(0), fr_turn(1)]).summary
    assert s.summary
    assert any(w in s.summary for w in ("J'ai", "cause", "Les tests", "machines"))
    assert any("corrigé" in f or "parce qu" in f or "cause" in f for f in s.key_findings)
    assert s.files_mentioned[:2] == ["graphmem/db/connect.py", "cypher/schema/0023_turn_embedding.cypher"]
    assert s.tools_used == ["Bash", "Edit"]
    lowered = {t.lower() for t in s.topics}
    assert not {"les", "dans", "pour", "avec", "est", "que"} & lowered
    assert any("Bash failed: Erreur" in f for f in s.key_findings)


def test_extractive_short_and_odd_input() -> None:
    s = ExtractiveSummarizer().summarize([TurnForSummary("ok", "done"), TurnForSummary("", "")]).summary
    assert s.summary in ("ok done", "ok", "done")
    s = ExtractiveSummarizer().summarize([TurnForSummary("x" * 5000, "```\ncode only\n```")]).summary
    assert len(s.summary) <= 600
    with pytest.raises(InvalidInput):
        ExtractiveSummarizer().summarize([])


def test_extractive_accepts_stored_and_input_models() -> None:
    now = datetime.now(UTC)
    stored = Turn(
        id="t1",
        session_id="s1",
        index=1,
        user_message="Please fix the import error in graphmem/cli/main.py now.",
        assistant_message="I fixed the import error because the module was renamed to graphmem.cli.main.",
        timestamp=now,
        char_count=100,
        tool_calls=[ToolCall(id="c1", name="Edit", args='{"file_path": "graphmem/cli/main.py"}')],
    )
    new = TurnIn(
        user_message="And run the tests in tests/unit please.",
        assistant_message="All unit tests pass now.",
        tool_calls=[ToolCallIn(name="Bash", args={"command": "pytest tests/unit/test_cli.py"})],
    )
    s = ExtractiveSummarizer().summarize([stored, new]).summary
    assert s.tools_used == ["Edit", "Bash"]
    assert s.files_mentioned == ["graphmem/cli/main.py", "tests/unit/test_cli.py"]


def test_extractive_rollup() -> None:
    ex = ExtractiveSummarizer()
    children = [ex.summarize([en_turn(i), en_turn(i + 1)]).summary for i in range(0, 6, 2)]
    children.append(ex.summarize([fr_turn(0)]).summary)
    a = ex.summarize_summaries(children)
    b = ExtractiveSummarizer().summarize_summaries(list(children))
    assert a == b
    s = a.summary
    assert a.method == "extractive"
    assert 0 < len(s.summary) <= 600
    assert s.tools_used == ["Read", "Bash", "Edit"]
    all_files = [f for c in children for f in c.files_mentioned]
    assert set(s.files_mentioned) == set(all_files) and len(s.files_mentioned) == len(set(all_files))
    all_findings = {f for c in children for f in c.key_findings}
    assert s.key_findings and set(s.key_findings) <= all_findings
    assert 0 < len(s.topics) <= 6
    with pytest.raises(InvalidInput):
        ex.summarize_summaries([])


def test_extractive_throughput() -> None:
    """>= 50 turns per CPU-second for 1-3 KB turns, 5 turns per summary (the roll-up threshold is ~5 KB).

    CPU time, not wall time, so that a busy machine does not make the test flaky.
    """
    turns = [en_turn(i) if i % 3 else fr_turn(i) for i in range(100)]
    ex = ExtractiveSummarizer()
    ex.summarize(turns[:5])  # warm-up (imports networkx)
    start = time.process_time()
    for i in range(0, len(turns), 5):
        ex.summarize(turns[i : i + 5])
    rate = len(turns) / max(time.process_time() - start, 1e-9)
    assert rate >= 50, f"{rate:.0f} turns/s"


def test_protocols() -> None:
    assert isinstance(ExtractiveSummarizer(), Summarizer)
    assert isinstance(FallbackSummarizer(ExtractiveSummarizer(), ExtractiveSummarizer()), Summarizer)


# --------------------------------------------------------------------------------------------
# OpenAI summarizer over real HTTP
# --------------------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


def llm(server: FakeOpenAIServer, **kwargs: object) -> OpenAISummarizer:
    opts: dict[str, object] = {"api_key": server.api_key, "base_url": server.base_url, "retry": FAST, "timeout": 5.0}
    opts.update(kwargs)
    return OpenAISummarizer(**opts)  # type: ignore[arg-type]


TURNS = [en_turn(0), en_turn(1)]


def test_llm_valid_json_records_tokens_and_cost(server: FakeOpenAIServer) -> None:
    sm = llm(server)
    r = sm.summarize(TURNS)
    assert r.method == "llm" and r.model == "gpt-4o-mini" and r.attempts == 1
    assert r.summary.summary == DEFAULT_SUMMARY["summary"]
    assert r.summary.key_findings == DEFAULT_SUMMARY["keyFindings"]
    assert r.summary.tools_used == ["Read", "Bash", "Edit"]  # what was actually called
    assert r.summary.files_mentioned[0] == "graphmem/db/connect.py"
    assert "cypher/schema/0023_turn_embedding.cypher" in r.summary.files_mentioned
    assert (r.prompt_tokens, r.completion_tokens) == (120, 40)
    assert r.cost_usd == pytest.approx(120 * 0.15e-6 + 40 * 0.60e-6)
    assert (sm.total_prompt_tokens, sm.total_completion_tokens) == (120, 40)
    body = server.requests("chat/completions")[0].body
    assert body["model"] == "gpt-4o-mini"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True and schema["schema"] == summary_json_schema()
    assert set(schema["schema"]["required"]) == {"summary", "keyFindings", "filesMentioned", "toolsUsed", "topics"}
    prompt = body["messages"][1]["content"]
    assert "[Turn 1]" in prompt and "Tool Bash (failed)" in prompt and "graphmem/db/connect.py" in prompt
    assert "temperature" not in body and "max_completion_tokens" not in body


def test_llm_unknown_model_has_no_cost(server: FakeOpenAIServer) -> None:
    r = llm(server).summarize(TURNS)
    assert r.cost_usd is not None
    r = OpenAISummarizer("llama3.1:8b", api_key=server.api_key, base_url=server.base_url, retry=FAST).summarize(TURNS)
    assert (r.prompt_tokens, r.cost_usd) == (120, None)
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini")
    assert estimate_cost("gpt-4o-mini", None, None) is None


def test_llm_invalid_json_then_valid(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", chat_content('{"summary": "trunc'), chat_content('{"topics": 3}'))
    sm = llm(server)
    r = sm.summarize(TURNS)
    assert r.method == "llm" and r.attempts == 3
    assert server.count("chat/completions") == 3
    assert (r.prompt_tokens, r.completion_tokens) == (360, 120)  # every answer is billed
    assert r.cost_usd == pytest.approx(3 * (120 * 0.15e-6 + 40 * 0.60e-6))


def test_llm_lenient_parsing(server: FakeOpenAIServer) -> None:
    content = (
        '```json\n{"summary": "Fixed it.", "key_findings": "one finding", "extra": 1, "topics": ["a", "", 2]}\n```'
    )
    server.script("chat/completions", chat_content(content))
    s = llm(server).summarize(TURNS).summary
    assert s.summary == "Fixed it." and s.key_findings == ["one finding"] and s.topics == ["a", "2"]


def test_llm_refusal_then_valid_and_refusals_exhausted(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", refusal())
    assert llm(server).summarize(TURNS).attempts == 2
    server.reset()
    server.script("chat/completions", refusal(), refusal(), refusal(), refusal())
    with pytest.raises(ProviderError, match="refused"):
        llm(server, max_output_attempts=3).summarize(TURNS)
    assert server.count("chat/completions") == 3


def test_llm_truncated_answer_is_retried(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", chat_content('{"summary": "cut', finish_reason="length"))
    assert llm(server).summarize(TURNS).attempts == 2


def test_llm_429_then_success(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", rate_limited(retry_after="0.2"), rate_limited(retry_after_ms=200))
    waits: list[float] = []
    r = llm(server, retry=dataclasses.replace(FAST, sleep=waits.append)).summarize(TURNS)
    assert len(waits) == 2 and all(0.2 <= w <= 0.22 for w in waits)  # as asked (+0-10 % jitter), not the backoff
    assert r.method == "llm" and r.attempts == 3 and server.count("chat/completions") == 3


def test_llm_malformed_http_body_then_success(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", Reply(raw_body=b"<html>proxy error</html>"))
    r = llm(server).summarize(TURNS)
    assert r.method == "llm" and r.attempts == 2


def test_llm_timeout_then_success(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", stall(30.0), server_error(503))
    r = llm(server, timeout=1.0).summarize(TURNS)
    assert r.attempts == 3  # the stalled request was given up (not waited for), then a 503, then success


def test_llm_bounded_attempts(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", *[server_error()] * 10)
    with pytest.raises(ProviderError, match="after 3 attempts"):
        llm(server, retry=RetryPolicy(max_attempts=3, initial_backoff=0.01)).summarize(TURNS)
    assert server.count("chat/completions") == 3


def test_llm_401_is_not_retried(server: FakeOpenAIServer) -> None:
    with pytest.raises(ProviderError, match="401"):
        OpenAISummarizer(api_key="sk-wrong", base_url=server.base_url, retry=FAST).summarize(TURNS)
    assert server.count("chat/completions") == 1


def test_llm_falls_back_to_json_mode() -> None:
    with FakeOpenAIServer(json_schema_supported=False) as srv:
        sm = llm(srv)
        r = sm.summarize(TURNS)
        assert r.method == "llm" and sm.mode == "json_object"
        kinds = [(q.body.get("response_format") or {}).get("type") for q in srv.requests("chat/completions")]
        assert kinds == ["json_schema", "json_object"]
        assert "JSON schema of the answer" in srv.requests("chat/completions")[-1].body["messages"][0]["content"]
        sm.summarize(TURNS)  # the working mode is kept
        assert srv.requests("chat/completions")[-1].body["response_format"] == {"type": "json_object"}
        assert srv.count("chat/completions") == 3


def test_llm_falls_back_to_text_mode() -> None:
    with FakeOpenAIServer(json_schema_supported=False, json_object_supported=False) as srv:
        sm = llm(srv)
        srv.script(
            "chat/completions", bad_request(), bad_request(), chat_content("Sure:\n" + json.dumps(DEFAULT_SUMMARY))
        )
        r = sm.summarize(TURNS)
        assert sm.mode == "text" and r.summary.summary == DEFAULT_SUMMARY["summary"]
        assert "response_format" not in srv.requests("chat/completions")[-1].body
        assert srv.count("chat/completions") == 3


def test_llm_fixed_mode_does_not_step_down() -> None:
    with FakeOpenAIServer(json_schema_supported=False) as srv:
        with pytest.raises(ProviderError, match="400"):
            llm(srv, structured_output="json_schema").summarize(TURNS)
        assert srv.count("chat/completions") == 1


def test_llm_rollup(server: FakeOpenAIServer) -> None:
    children = [
        ConversationSummary(summary="Fixed the driver.", tools_used=["Bash"], files_mentioned=["a/b.py"]),
        ConversationSummary(summary="Added an index.", tools_used=["Edit", "Bash"], files_mentioned=["c/d.cypher"]),
    ]
    r = llm(server).summarize_summaries(children)
    assert r.method == "llm"
    assert r.summary.tools_used == ["Bash", "Edit"]
    assert r.summary.files_mentioned[:2] == ["a/b.py", "c/d.cypher"]
    prompt = server.requests("chat/completions")[0].body["messages"][1]["content"]
    assert "[Summary 1]" in prompt and "Fixed the driver." in prompt and "Added an index." in prompt


def test_llm_deadline_stops_asking_again(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", *[chat_content("not json")] * 5)
    with pytest.raises(ProviderError, match="within 0s"):
        llm(server, deadline=0.0, max_output_attempts=5).summarize(TURNS)
    assert server.count("chat/completions") == 1


def test_llm_lone_surrogates_are_sent_cleaned(server: FakeOpenAIServer) -> None:
    turn = TurnForSummary("bad \ud800 text in src/a.py", "ok \udfff", (ToolCallForSummary("X\ud800", "\ud800"),))
    r = llm(server).summarize([turn])
    assert r.summary.tools_used == ["X\ufffd"]
    assert "bad \ufffd text" in server.requests("chat/completions")[0].body["messages"][1]["content"]
    assert ExtractiveSummarizer().summarize([turn]).summary.files_mentioned == ["src/a.py"]


def test_llm_empty_input(server: FakeOpenAIServer) -> None:
    with pytest.raises(InvalidInput):
        llm(server).summarize([])
    assert server.count() == 0


# --------------------------------------------------------------------------------------------
# fallback and factory
# --------------------------------------------------------------------------------------------


def test_fallback_marks_extractive(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", *[server_error()] * 4)
    fb = FallbackSummarizer(
        llm(server, retry=RetryPolicy(max_attempts=2, initial_backoff=0.01)), ExtractiveSummarizer()
    )
    r = fb.summarize(TURNS)
    assert isinstance(r, SummaryResult)
    assert r.method == "extractive" and r.model == "textrank-v1"
    assert r.fallback_error is not None and "500" in r.fallback_error
    assert r.summary == ExtractiveSummarizer().summarize(TURNS).summary
    assert server.count("chat/completions") == 2
    # cooling down: the LLM is not asked again right away
    assert fb.summarize(TURNS).method == "extractive"
    assert server.count("chat/completions") == 2


def test_fallback_uses_primary_when_healthy(server: FakeOpenAIServer) -> None:
    server.script("chat/completions", unauthorized())
    fb = FallbackSummarizer(llm(server), ExtractiveSummarizer(), cooldown=0)
    assert fb.summarize(TURNS).method == "extractive"
    assert fb.summarize(TURNS).method == "llm"  # no cooldown: asked again
    children = [ExtractiveSummarizer().summarize(TURNS).summary] * 2
    assert fb.summarize_summaries(children).method == "llm"


def test_make_summarizer(server: FakeOpenAIServer) -> None:
    assert isinstance(make_summarizer(Settings()), ExtractiveSummarizer)
    assert isinstance(make_summarizer(Settings(summarizer="openai")), ExtractiveSummarizer)  # nothing configured
    sm = make_summarizer(
        Settings(summarizer="openai", openai_base_url=server.base_url, openai_api_key=SecretStr(server.api_key))
    )
    assert isinstance(sm, FallbackSummarizer) and isinstance(sm.primary, OpenAISummarizer)
    assert sm.summarize(TURNS).method == "llm"
    sm = make_summarizer(Settings(summarizer="openai", openai_api_key=SecretStr("sk-x"), llm_model="gpt-4.1-mini"))
    assert isinstance(sm, FallbackSummarizer) and isinstance(sm.primary, OpenAISummarizer)
    assert sm.primary.model == "gpt-4.1-mini"
