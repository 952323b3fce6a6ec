"""Reproducible, realistic Claude Code transcripts (JSONL) with the expected import result.

The records mimic Claude Code 2.x: a ``summary`` line, ``file-history-snapshot`` and
``progress`` records, prompts with French text, emoji and code, streamed assistant messages
split over several lines sharing ``message.id`` (one of them re-written cumulatively), parallel
tool calls joined by ``tool_use_id``, failing tools, a tool interrupted by the user, local
command noise, an answered custom slash command, a subagent (sidechain) run, a compaction, a
``#nomem`` prompt, a duplicated line, a hook context attachment, ``turn_duration`` end-of-turn
records and a truncated last line.
"""

from __future__ import annotations

import json
import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["ClaudeTranscript", "ExpectedTool", "ExpectedTurn", "generate"]

BASE = datetime(2025, 6, 2, 9, 0, 0, tzinfo=UTC)
SESSION_ID = "7f3c2a10-5b8e-4d61-9a4f-2c1e8b7d6a50"
CWD = "/home/dev/projects/billing-api"

PROMPTS = [
    "Can you look at why `test_invoice_total` fails?",
    "Peux-tu corriger l'erreur d'encodage dans le fichier `été.py` ? Merci 🙏",
    "Refactor the rounding helper:\n\n```python\ndef round_cents(x):\n    return int(x * 100) / 100\n```\n\nIt truncates instead of rounding.",
    "Add a migration for the `invoices.currency` column (default 'EUR') 🚀",
    "Why is the CI slow? Here is the log:\n  step 1: 3m12s\n  step 2: 8m40s\n  step 3: 0m05s",
    "Écris des tests pour le cas où la TVA est à 5,5 % et le montant négatif.",
    "Rename `calc_tax` to `compute_vat` everywhere, keep a deprecated alias.",
    "What does the `@retry(backoff=2)` decorator do in payments/client.py?",
    "Please bump the dependencies and run the full test suite.",
    "Summarize the changes of this session in the CHANGELOG (français + English).",
    "The date parser breaks on '2025-02-30' — make it raise a clear error 🙂",
    "Can you explain the difference between Decimal quantize modes here?",
]
FINALS = [
    "Fixed: the total now uses `Decimal` and `ROUND_HALF_UP`; all 42 tests pass. ✅",
    "C'est corrigé : le fichier est relu en UTF-8 et les accents (é, è, à, ç) sont conservés.",
    "Done. `round_cents` now uses `Decimal.quantize`; I added 6 edge-case tests.",
    "The migration is in `migrations/0042_currency.py`; it backfills existing rows with 'EUR'.",
    "Step 2 runs the integration suite serially; I enabled `-n auto` and cached the wheels.",
    "J'ai ajouté 4 tests paramétrés (TVA 5,5 %, montants négatifs, zéro, arrondis).",
    "Renamed in 17 files; `calc_tax` is kept as a deprecated alias emitting a warning.",
    "It retries failed HTTP calls with exponential backoff (2s, 4s, 8s) up to 3 attempts.",
    "Dependencies bumped; 318 passed, 2 skipped. Nothing else changed.",
    "CHANGELOG updated in both languages under 'Unreleased'.",
    "The parser now raises `InvalidDate('2025-02-30: day out of range')`. 🙂",
    "`ROUND_HALF_EVEN` is banker's rounding; invoices must use `ROUND_HALF_UP`.",
]
INTERMEDIATE = [
    "Let me look at the relevant files first.",
    "I'll run the tests to see the failure.",
    "Now let me check where this helper is used.",
    "Je regarde le module concerné.",
    "Let me apply the change.",
]
TOOLS: list[tuple[str, dict[str, Any], str]] = [
    (
        "Read",
        {"file_path": f"{CWD}/billing/invoice.py"},
        "     1→from decimal import Decimal\n     2→\n     3→def total(lines):",
    ),
    (
        "Bash",
        {"command": "pytest -q tests/test_invoice.py", "description": "Run invoice tests"},
        "....F\n1 failed, 4 passed",
    ),
    ("Grep", {"pattern": "calc_tax", "path": CWD}, "billing/tax.py\nbilling/invoice.py\napi/routes.py"),
    (
        "Edit",
        {"file_path": f"{CWD}/billing/tax.py", "old_string": "def calc_tax(", "new_string": "def compute_vat("},
        "The file billing/tax.py has been updated.",
    ),
    ("Glob", {"pattern": "**/*.py"}, "billing/invoice.py\nbilling/tax.py\nété.py"),
    ("Write", {"file_path": f"{CWD}/NOTES.md", "content": "# Notes\n\n- arrondi: ROUND_HALF_UP\n"}, "File created."),
]


@dataclass
class ExpectedTool:
    id: str
    name: str
    success: bool | None
    duration_ms: int | None
    result: str | None


@dataclass
class ExpectedTurn:
    source_id: str
    user_message: str
    texts: list[str] = field(default_factory=list)
    tool_ids: list[str] = field(default_factory=list)
    kind: str = "prompt"
    nomem: bool = False

    @property
    def assistant_message(self) -> str:
        return "\n\n".join(self.texts)


@dataclass
class ClaudeTranscript:
    """The generated lines and what importing them must give."""

    lines: list[str]
    partial_last_line: str
    turns: list[ExpectedTurn]
    tools: dict[str, ExpectedTool]
    generated: Counter[str]
    session_id: str = SESSION_ID
    cwd: str = CWD
    title: str = "Fix invoice rounding and encoding issues"

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
        self.parent: str | None = None
        self.lines: list[str] = []
        self.turns: list[ExpectedTurn] = []
        self.tools: dict[str, ExpectedTool] = {}
        self.generated: Counter[str] = Counter()
        self.msg_counter = 0

    # -- helpers ---------------------------------------------------------------------------
    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def tick(self, ms: int) -> str:
        self.t += timedelta(milliseconds=ms)
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def base(self, rtype: str, *, sidechain: bool = False, ms: int | None = None) -> dict[str, Any]:
        u = self.uid()
        rec = {
            "parentUuid": self.parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": rtype,
            "uuid": u,
            "timestamp": self.tick(ms if ms is not None else self.rng.randint(200, 4000)),
        }
        if not sidechain:
            self.parent = u
        return rec

    def emit(self, rec: dict[str, Any]) -> str:
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        self.lines.append(line)
        return line

    def msg_id(self) -> str:
        self.msg_counter += 1
        return f"msg_01{self.rng.getrandbits(64):016x}{self.msg_counter:04d}"

    def assistant(self, mid: str, blocks: list[dict[str, Any]], *, sidechain: bool = False) -> dict[str, Any]:
        rec = self.base("assistant", sidechain=sidechain, ms=self.rng.randint(300, 2500))
        rec["requestId"] = f"req_{self.rng.getrandbits(48):012x}"
        rec["message"] = {
            "model": "claude-sonnet-4-5-20250929",
            "id": mid,
            "type": "message",
            "role": "assistant",
            "content": blocks,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 4, "cache_read_input_tokens": 19024, "output_tokens": 120},
        }
        self.emit(rec)
        return rec

    def user(self, content: Any, *, sidechain: bool = False, **extra: Any) -> dict[str, Any]:
        rec = self.base("user", sidechain=sidechain)
        rec["message"] = {"role": "user", "content": content}
        rec.update(extra)
        self.emit(rec)
        return rec

    def snapshot(self) -> None:
        self.emit(
            {
                "type": "file-history-snapshot",
                "messageId": self.uid(),
                "snapshot": {"messageId": self.uid(), "trackedFileBackups": {}, "timestamp": self.tick(1)},
                "isSnapshotUpdate": False,
            }
        )
        self.generated["file-history-snapshot"] += 1

    def progress(self, tool_id: str) -> None:
        rec = self.base("progress", ms=50)
        rec["data"] = {"type": "bash_progress", "output": "....", "elapsedTimeSeconds": 1}
        rec["toolUseID"] = tool_id
        rec["parentToolUseID"] = tool_id
        self.parent = rec["parentUuid"]  # progress records are not part of the chain
        self.emit(rec)
        self.generated["progress"] += 1

    # -- turn pieces -----------------------------------------------------------------------
    def prompt(
        self, text: str, *, nomem: bool = False, kind: str = "prompt", user_message: str | None = None
    ) -> ExpectedTurn:
        if self.rng.random() < 0.7:
            self.snapshot()
        content: Any = text if self.rng.random() < 0.6 else [{"type": "text", "text": text}]
        rec = self.user(content)
        turn = ExpectedTurn(rec["uuid"], user_message if user_message is not None else text, kind=kind, nomem=nomem)
        self.turns.append(turn)
        return turn

    def tool_round(self, turn: ExpectedTurn, *, n_tools: int, fail: bool = False, intro: bool = True) -> None:
        mid = self.msg_id()
        if intro:
            text = self.rng.choice(INTERMEDIATE)
            self.assistant(mid, [{"type": "text", "text": text}])
            turn.texts.append(text)
        uses: list[tuple[str, str, str, datetime]] = []
        for _ in range(n_tools):
            name, args, result = self.rng.choice(TOOLS)
            tid = f"toolu_01{self.rng.getrandbits(80):020x}"
            rec = self.assistant(mid, [{"type": "tool_use", "id": tid, "name": name, "input": args}])
            uses.append((tid, name, result, datetime.fromisoformat(rec["timestamp"].replace("Z", "+00:00"))))
            turn.tool_ids.append(tid)
            if name == "Bash":
                self.progress(tid)
        for i, (tid, name, result, started) in enumerate(uses):
            duration = self.rng.randint(5, 9000)
            self.t = max(self.t, started + timedelta(milliseconds=duration))
            ts = self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            failed = fail and i == 0
            content = f"Exit code 1\n{result}\nError: assertion failed" if failed else result
            block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": content}
            if failed:
                block["is_error"] = True
            elif self.rng.random() < 0.3:
                block["content"] = [{"type": "text", "text": result}]
            rec = self.base("user", ms=0)
            rec["timestamp"] = ts
            rec["message"] = {"role": "user", "content": [block]}
            rec["toolUseResult"] = {"stdout": result, "stderr": "", "interrupted": False, "isImage": False}
            self.emit(rec)
            actual = round((self.t - started).total_seconds() * 1000)
            self.tools[tid] = ExpectedTool(tid, name, not failed, actual, content)

    def final(self, turn: ExpectedTurn, text: str, *, mode: str = "split") -> None:
        mid = self.msg_id()
        if mode == "split":  # thinking line, then the text line, same message id
            self.assistant(mid, [{"type": "thinking", "thinking": "The user wants…", "signature": "EqQBCkYI"}])
            self.assistant(mid, [{"type": "text", "text": text}])
            turn.texts.append(text)
        elif mode == "two_blocks":  # two text blocks on two lines, same message id
            first, _, second = text.partition(" ")
            self.assistant(mid, [{"type": "text", "text": first}])
            self.assistant(mid, [{"type": "text", "text": second}])
            turn.texts.extend([first, second])
        elif mode == "cumulative":  # a later line repeats the earlier block and adds one
            extra = "Anything else? 🙂"
            self.assistant(mid, [{"type": "text", "text": text}])
            self.assistant(mid, [{"type": "text", "text": text}, {"type": "text", "text": extra}])
            turn.texts.extend([text, extra])
        else:
            self.assistant(mid, [{"type": "text", "text": text}])
            turn.texts.append(text)


def generate(seed: int = 7, n_turns: int = 48) -> ClaudeTranscript:
    """A transcript of ``n_turns`` ordinary prompts plus the special cases listed above."""
    g = _Gen(seed)
    g.emit({"type": "summary", "summary": "Fix invoice rounding and encoding issues", "leafUuid": g.uid()})
    g.generated["summary"] += 1
    caveat = g.user(
        "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to "
        "these messages or otherwise consider them in your response unless the user explicitly asks you to.",
        isMeta=True,
    )
    del caveat
    compaction_at = n_turns * 3 // 5
    for i in range(n_turns):
        text = PROMPTS[i % len(PROMPTS)]
        if i % len(PROMPTS) != i:
            text = f"{text} (round {i // len(PROMPTS) + 1})"
        turn = g.prompt(text)
        if i == 5:  # the hook's context is logged as an attachment record
            rec = g.base("attachment", ms=5)
            rec["attachment"] = {
                "type": "hook_additional_context",
                "content": ["<graphmem-context>\nearlier: fixed rounding\n</graphmem-context>"],
                "hookName": "UserPromptSubmit",
                "hookEvent": "UserPromptSubmit",
            }
            g.emit(rec)
            g.generated["attachment"] += 1
        rounds = g.rng.choice([0, 1, 1, 2, 3])
        for r in range(rounds):
            g.tool_round(
                turn, n_tools=g.rng.choice([1, 1, 2]), fail=(i % 7 == 3 and r == 0), intro=g.rng.random() < 0.7
            )
        mode = ["split", "two_blocks", "cumulative", "plain"][i % 4]
        g.final(turn, FINALS[i % len(FINALS)], mode=mode)
        if i % 3 == 0:  # Claude Code 2.1 ends a turn with a turn_duration record
            rec = g.base("system", ms=20)
            rec.update({"subtype": "turn_duration", "durationMs": 4200, "isMeta": False})
            g.emit(rec)
            g.generated["turn_duration"] += 1
        if i == 2:  # a duplicated line (the same record written twice)
            g.lines.append(g.lines[-1])
            g.generated["duplicate"] += 1
        if i == 8:  # a local command: pure noise
            g.user(
                "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"
            )
            g.user("<local-command-stdout>Set model to opus (claude-opus-4-1)</local-command-stdout>")
            g.generated["command_noise"] += 2
        if i == 10:  # an answered custom slash command
            t = g.prompt(
                "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n"
                "<command-args>PR 42</command-args>",
                kind="command",
                user_message="/review PR 42",
            )
            g.user("Review the pull request PR 42 carefully and list the risks.", isMeta=True)
            g.final(t, "PR 42 looks fine; one risk: the migration locks `invoices` for ~2s.", mode="plain")
        if i == 14:  # a subagent run through the Task tool (sidechain records)
            t = g.prompt("Use a subagent to find every TODO in billing/ and group them.")
            mid = g.msg_id()
            tid = f"toolu_01{g.rng.getrandbits(80):020x}"
            use = g.assistant(
                mid,
                [
                    {
                        "type": "tool_use",
                        "id": tid,
                        "name": "Task",
                        "input": {"description": "Find TODOs", "prompt": "List TODOs"},
                    }
                ],
            )
            started = datetime.fromisoformat(use["timestamp"].replace("Z", "+00:00"))
            t.tool_ids.append(tid)
            g.user("List every TODO under billing/ grouped by file.", sidechain=True)
            sub_mid = g.msg_id()
            g.assistant(sub_mid, [{"type": "text", "text": "Searching for TODO markers."}], sidechain=True)
            g.assistant(
                sub_mid,
                [{"type": "tool_use", "id": "toolu_sub1", "name": "Grep", "input": {"pattern": "TODO"}}],
                sidechain=True,
            )
            g.user(
                [{"tool_use_id": "toolu_sub1", "type": "tool_result", "content": "billing/a.py:3: TODO"}],
                sidechain=True,
            )
            g.assistant(g.msg_id(), [{"type": "text", "text": "3 TODOs in 2 files."}], sidechain=True)
            g.generated["sidechain"] += 5
            report = "Found 3 TODOs: billing/a.py (2), billing/tax.py (1)."
            rec = g.base("user", ms=6000)
            rec["message"] = {
                "role": "user",
                "content": [{"tool_use_id": tid, "type": "tool_result", "content": [{"type": "text", "text": report}]}],
            }
            g.emit(rec)
            end = datetime.fromisoformat(rec["timestamp"].replace("Z", "+00:00"))
            g.tools[tid] = ExpectedTool(tid, "Task", True, round((end - started).total_seconds() * 1000), report)
            g.final(t, "The subagent found 3 TODOs; the one in tax.py is the oldest.", mode="plain")
        if i == 20:  # a tool interrupted by the user: no tool_result at all
            t = g.prompt("Run the whole integration suite please.")
            mid = g.msg_id()
            tid = f"toolu_01{g.rng.getrandbits(80):020x}"
            g.assistant(
                mid, [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "make integration"}}]
            )
            g.progress(tid)
            t.tool_ids.append(tid)
            g.tools[tid] = ExpectedTool(tid, "Bash", None, None, None)
            g.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
            t.texts.append("[Request interrupted by user for tool use]")
        if i == 24:  # an opted-out prompt
            t = g.prompt("Here is my scratch note, don't keep it #nomem", nomem=True)
            g.final(t, "Understood.", mode="plain")
        if i == 27:  # a prompt that carries a secret
            t = g.prompt("Use this key for the sandbox: sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678StU901vWx234")
            g.final(t, "Configured the sandbox client (the key is read from the environment now).", mode="plain")
        if i == compaction_at:
            rec = g.base("system", ms=1000)
            rec.update({"subtype": "compact_boundary", "content": "Conversation compacted", "level": "info"})
            rec["parentUuid"] = None
            rec["logicalParentUuid"] = g.uid()
            rec["compactMetadata"] = {"trigger": "auto", "preTokens": 155321}
            g.emit(rec)
            g.generated["system"] += 1
            summary = (
                "This session is being continued from a previous conversation that ran out of context. "
                "The conversation is summarized below:\nAnalysis: fixed rounding, encoding, migration."
            )
            rec = g.user(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)
            g.turns.append(ExpectedTurn(rec["uuid"], "[compaction summary]", [summary], kind="compaction"))
    # a final partial write (the process was killed mid-line)
    last = g.lines[-1]
    partial = last[: len(last) * 3 // 5]
    return ClaudeTranscript(g.lines, partial, g.turns, g.tools, g.generated)
