"""Reproducible, realistic Codex CLI rollouts (JSONL) with the expected import result.

Mimics codex-rs rollouts (0.4x-0.6x): ``session_meta``, injected ``<user_instructions>`` and
``<environment_context>`` user messages, ``turn_context`` per turn, prompts duplicated as
``event_msg``/``user_message``, encrypted ``reasoning`` items, ``shell`` function calls whose
outputs use the JSON-metadata form or the ``Exit code:``/``Wall time:`` form, ``exec_command_end``
events, an ``apply_patch`` custom tool call, a plan update, a web search, ``token_count``
events, an aborted turn with an unanswered call, a ``compacted`` record, a ``#nomem`` prompt, an
unknown newer record type, a duplicated line and a truncated last line.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["CodexRollout", "ExpectedTool", "ExpectedTurn", "generate"]

SESSION_ID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
CWD = "/home/dev/src/weather-service"
BASE = datetime(2025, 9, 14, 16, 30, 0, tzinfo=UTC)

PROMPTS = [
    "Add a `--units` flag (metric/imperial) to the CLI.",
    "Pourquoi le cache Redis expire-t-il trop tôt ? 🤔",
    "Write tests for `parse_forecast()` with an empty payload.",
    "The Dockerfile image is 1.2 GB, can we slim it down?",
    "Explique-moi la différence entre `asyncio.gather` et `TaskGroup`.",
    "Fix the flaky test in tests/test_api.py::test_timeout 🐛",
    "Bump httpx to 0.28 and check for breaking changes.",
    "Document the environment variables in README.md",
]
ANSWERS = [
    "Added `--units` with `metric` as default; the formatter converts °C→°F and km/h→mph.",
    "Le TTL était en millisecondes au lieu de secondes ; corrigé dans `cache.py` (3600 s).",
    "Added 3 tests covering empty, partial and malformed payloads — all green ✅",
    "Switched to `python:3.12-slim` + multi-stage build: the image is now 184 MB.",
    "`gather` continue si une tâche échoue (selon return_exceptions) ; `TaskGroup` annule les autres.",
    "The test relied on wall-clock time; it now uses a fake clock and passes 200/200 runs.",
    "httpx 0.28 removed `app=`; I switched the tests to `ASGITransport`. All tests pass.",
    "README now lists WEATHER_API_URL, CACHE_TTL and LOG_LEVEL with defaults.",
]
COMMANDS = [
    (["bash", "-lc", "pytest -q"], "........\n8 passed in 0.42s"),
    (["bash", "-lc", "rg -n 'ttl' src"], "src/cache.py:12:    ttl = 3_600_000"),
    (["bash", "-lc", "docker images weather"], "weather  latest  1.2GB"),
    (["bash", "-lc", "ls -la src"], "api.py\ncache.py\ncli.py\nforecast.py"),
]


@dataclass
class ExpectedTool:
    call_id: str
    name: str
    success: bool | None
    duration_ms: int | None


@dataclass
class ExpectedTurn:
    user_message: str
    texts: list[str] = field(default_factory=list)
    call_ids: list[str] = field(default_factory=list)
    kind: str = "prompt"
    nomem: bool = False


@dataclass
class CodexRollout:
    lines: list[str]
    partial_last_line: str
    turns: list[ExpectedTurn]
    tools: dict[str, ExpectedTool]
    session_id: str = SESSION_ID
    cwd: str = CWD

    def text(self, *, with_partial: bool = True) -> str:
        body = "\n".join(self.lines) + "\n"
        return body + self.partial_last_line if with_partial else body

    def data(self, *, with_partial: bool = True) -> bytes:
        return self.text(with_partial=with_partial).encode("utf-8")

    def kept_turns(self) -> list[ExpectedTurn]:
        return [t for t in self.turns if not t.nomem]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.t = BASE
        self.lines: list[str] = []
        self.turns: list[ExpectedTurn] = []
        self.tools: dict[str, ExpectedTool] = {}

    def ts(self, ms: int | None = None) -> str:
        self.t += timedelta(milliseconds=ms if ms is not None else self.rng.randint(100, 3000))
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def emit(self, rtype: str, payload: dict[str, Any], ms: int | None = None) -> None:
        self.lines.append(json.dumps({"timestamp": self.ts(ms), "type": rtype, "payload": payload}, ensure_ascii=False))

    def item(self, payload: dict[str, Any], ms: int | None = None) -> None:
        self.emit("response_item", payload, ms)

    def event(self, payload: dict[str, Any], ms: int | None = None) -> None:
        self.emit("event_msg", payload, ms)

    def message(self, role: str, text: str) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        self.item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    def call_id(self) -> str:
        return f"call_{self.rng.getrandbits(96):024x}"

    def turn_start(self, turn_id: str) -> None:
        self.emit(
            "turn_context",
            {
                "cwd": CWD,
                "approval_policy": "on-request",
                "sandbox_policy": {"mode": "workspace-write"},
                "model": "gpt-5-codex",
                "effort": "medium",
                "summary": "auto",
                "turn_id": turn_id,
            },
        )
        self.event({"type": "task_started", "turn_id": turn_id, "model_context_window": 272000})

    def prompt(self, text: str, *, nomem: bool = False) -> ExpectedTurn:
        self.turn_start(f"turn-{len(self.turns)}")
        self.message("user", text)
        self.event({"type": "user_message", "message": text, "images": []}, ms=2)
        turn = ExpectedTurn(text, nomem=nomem)
        self.turns.append(turn)
        return turn

    def shell(self, turn: ExpectedTurn, *, fail: bool, style: str) -> None:
        self.item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Checking**"}],
                "encrypted_content": "gAAAAB…",
            }
        )
        self.event({"type": "agent_reasoning", "text": "**Checking**"}, ms=5)
        command, out = self.rng.choice(COMMANDS)
        cid = self.call_id()
        args = {"command": command, "workdir": CWD, "timeout_ms": 120000}
        self.item({"type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": cid})
        secs = round(self.rng.uniform(0.01, 9.0), 3)
        code = 1 if fail else 0
        body = f"{out}\nFAILED tests/test_api.py::test_timeout" if fail else out
        self.event(
            {
                "type": "exec_command_end",
                "call_id": cid,
                "stdout": body,
                "stderr": "",
                "aggregated_output": body,
                "exit_code": code,
                "duration": {"secs": int(secs), "nanos": round((secs - int(secs)) * 1e9)},
                "formatted_output": body,
            },
            ms=int(secs * 1000),
        )
        if style == "json":
            output = json.dumps({"output": body, "metadata": {"exit_code": code, "duration_seconds": secs}})
        else:
            output = f"Exit code: {code}\nWall time: {secs} seconds\nOutput:\n{body}"
        self.item({"type": "function_call_output", "call_id": cid, "output": output}, ms=3)
        self.event(
            {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1200, "output_tokens": 80}}}, ms=1
        )
        turn.call_ids.append(cid)
        self.tools[cid] = ExpectedTool(cid, "shell", not fail, round(secs * 1000))

    def patch(self, turn: ExpectedTurn) -> None:
        cid = self.call_id()
        patch = (
            "*** Begin Patch\n*** Update File: src/cache.py\n@@\n-    ttl = 3_600_000\n+    ttl = 3_600\n*** End Patch"
        )
        self.item(
            {"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "apply_patch", "input": patch}
        )
        before = self.t
        self.item(
            {
                "type": "custom_tool_call_output",
                "call_id": cid,
                "output": json.dumps(
                    {
                        "output": "Success. Updated the following files:\nM src/cache.py\n",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.0},
                    }
                ),
            }
        )
        del before
        turn.call_ids.append(cid)
        self.tools[cid] = ExpectedTool(cid, "apply_patch", True, 0)

    def plan(self, turn: ExpectedTurn) -> None:
        cid = self.call_id()
        args = {"plan": [{"step": "Reproduce", "status": "completed"}, {"step": "Fix", "status": "in_progress"}]}
        self.item({"type": "function_call", "name": "update_plan", "arguments": json.dumps(args), "call_id": cid})
        start = self.t
        self.item({"type": "function_call_output", "call_id": cid, "output": "Plan updated"})
        turn.call_ids.append(cid)
        self.tools[cid] = ExpectedTool(cid, "update_plan", True, round((self.t - start).total_seconds() * 1000))

    def answer(self, turn: ExpectedTurn, text: str) -> None:
        self.message("assistant", text)
        self.event({"type": "agent_message", "message": text}, ms=1)
        self.event(
            {"type": "task_complete", "turn_id": f"turn-{len(self.turns) - 1}", "last_agent_message": text}, ms=2
        )
        turn.texts.append(text)


def generate(seed: int = 11, n_turns: int = 40) -> CodexRollout:
    g = _Gen(seed)
    g.emit(
        "session_meta",
        {
            "id": SESSION_ID,
            "timestamp": BASE.isoformat().replace("+00:00", "Z"),
            "cwd": CWD,
            "originator": "codex_cli_rs",
            "cli_version": "0.46.0",
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
            "git": {"commit_hash": "3f2a9c1d4e5b6a7980f1e2d3c4b5a69788f0e1d2", "branch": "main"},
        },
        ms=0,
    )
    g.message("user", "<user_instructions>\n\nAlways run the tests before answering.\n\n</user_instructions>")
    g.message(
        "user",
        f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
        "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
        "  <shell>bash</shell>\n</environment_context>",
    )
    for i in range(n_turns):
        text = PROMPTS[i % len(PROMPTS)] + (f" (#{i // len(PROMPTS) + 1})" if i >= len(PROMPTS) else "")
        turn = g.prompt(text)
        for r in range(g.rng.choice([0, 1, 2, 3])):
            g.shell(turn, fail=(i % 6 == 4 and r == 0), style="json" if (i + r) % 2 == 0 else "text")
        if i % 5 == 1:
            g.patch(turn)
        if i % 9 == 2:
            g.plan(turn)
        if i == 6:
            g.item(
                {
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": "httpx 0.28 changelog"},
                }
            )
            g.tools["web"] = ExpectedTool("web", "web_search", True, 0)
        g.answer(turn, ANSWERS[i % len(ANSWERS)])
        if i == 3:
            g.lines.append(g.lines[-1])  # a duplicated line
        if i == 9:  # an aborted turn: the call never got an output
            t = g.prompt("Run the load test against staging")
            cid = g.call_id()
            g.item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps({"command": ["k6", "run", "load.js"]}),
                    "call_id": cid,
                }
            )
            g.event({"type": "turn_aborted", "reason": "interrupted"})
            t.call_ids.append(cid)
            t.texts.append("[turn aborted by user]")
            g.tools[cid] = ExpectedTool(cid, "shell", None, None)
        if i == 15:
            t = g.prompt("Ignore this scratch question #nomem", nomem=True)
            g.answer(t, "Sure.")
        if i == 20:
            summary = "Summary of the work so far: units flag, Redis TTL fix, slimmer image, httpx upgrade."
            g.emit("compacted", {"message": summary, "replacement_history": []})
            g.turns.append(ExpectedTurn("[compaction summary]", [summary], kind="compaction"))
        if i == 22:
            g.emit("future_record", {"type": "something_new", "value": 1})
    last = g.lines[-1]
    return CodexRollout(g.lines, last[: len(last) // 2], g.turns, g.tools)
