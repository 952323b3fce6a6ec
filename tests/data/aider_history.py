"""A reproducible, realistic ``.aider.chat.history.md`` with the expected import result.

Written the way aider's ``InputOutput`` writes it: ``# aider chat started at`` headers,
``#### `` prompt lines (multi-line prompts as several ``####`` lines ending with two spaces),
model output between blank lines, and ``> `` tool lines (file adds, applied edits, commits,
token counts, ``/run`` output, confirmation questions), over several sessions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

__all__ = ["AiderHistory", "ExpectedSession", "ExpectedTurn", "generate"]

PROMPTS = [
    "add a --verbose flag to the cli",
    "Corrige la fonction `slugify` pour gérer les accents (é → e) 🙏",
    "write a unit test for parse_duration('1h30m')",
    "/ask what does the retry decorator do?",
    "rename utils.py to helpers.py and fix the imports",
    "the README example is outdated, update it",
]
ANSWERS = [
    "I'll add the flag to `cli.py`.\n\ncli.py\n```python\n<<<<<<< SEARCH\nparser.add_argument('--quiet')\n=======\nparser.add_argument('--quiet')\nparser.add_argument('--verbose', action='store_true')\n>>>>>>> REPLACE\n```",
    "Voici la correction de `slugify` avec `unicodedata.normalize('NFKD', ...)`.\n\nslug.py\n```python\n<<<<<<< SEARCH\n    return s.lower()\n=======\n    s = unicodedata.normalize('NFKD', s).encode('ascii', 'ignore').decode()\n    return s.lower()\n>>>>>>> REPLACE\n```",
    "Here is a test:\n\ntests/test_duration.py\n```python\n<<<<<<< SEARCH\n=======\ndef test_parse_duration():\n    assert parse_duration('1h30m') == 5400\n>>>>>>> REPLACE\n```",
    "It retries the wrapped call up to 3 times, sleeping 2**n seconds between attempts.",
    "I renamed the module and updated 4 imports.",
    "Updated the README example to use the new `--verbose` flag.",
]


@dataclass
class ExpectedTurn:
    user_message: str
    tool_names: list[str] = field(default_factory=list)
    has_answer: bool = True


@dataclass
class ExpectedSession:
    started: str
    turns: list[ExpectedTurn] = field(default_factory=list)


@dataclass
class AiderHistory:
    text: str
    sessions: list[ExpectedSession]


def _user(lines: list[str], text: str) -> None:
    parts = text.splitlines() or ["<blank>"]
    lines.append("")
    for p in parts:
        lines.append(f"#### {p}  ")


def _tool(lines: list[str], text: str) -> None:
    lines.append(f"> {text}  ")


def generate(seed: int = 2, n_sessions: int = 4, turns_per_session: int = 14) -> AiderHistory:
    rng = random.Random(seed)
    lines: list[str] = []
    sessions: list[ExpectedSession] = []
    start = datetime(2025, 3, 10, 14, 5, 9)
    for s in range(n_sessions):
        stamp = (start + timedelta(days=s, minutes=7 * s)).strftime("%Y-%m-%d %H:%M:%S")
        sess = ExpectedSession(stamp)
        sessions.append(sess)
        lines += ["", f"# aider chat started at {stamp}", ""]
        _tool(lines, "/usr/bin/aider --model sonnet")
        _tool(lines, "Aider v0.86.1")
        _tool(lines, "Main model: anthropic/claude-sonnet-4-20250514 with diff edit format")
        _tool(lines, "Git repo: .git with 42 files")
        _tool(lines, "Repo-map: using 4096 tokens, auto refresh")
        pending: list[str] = []
        for i in range(turns_per_session):
            if i % 5 == 2:  # a command before the prompt: becomes a tool call of the next turn
                _user(lines, "/add src/cli.py")
                _tool(lines, "Added src/cli.py to the chat")
                pending.append("/add")
            if i % 7 == 4:
                _user(lines, "/run pytest -q")
                _tool(lines, "Running pytest -q")
                _tool(lines, "....F")
                _tool(lines, "1 failed, 4 passed")
                _tool(lines, "Add command output to the chat? (Y)es/(N)o [Yes]: y")
                pending.append("/run")
            prompt = PROMPTS[(i + s) % len(PROMPTS)]
            if i == 6:
                prompt = "please refactor the config loader:\n- read TOML\n- keep env overrides\n- add tests"
            if s == 1 and i == 3:
                prompt = "this one is private #nomem"
            turn = ExpectedTurn(prompt, tool_names=list(pending))
            pending = []
            _user(lines, prompt)
            answer = ANSWERS[(i + s) % len(ANSWERS)]
            lines += ["", answer, ""]
            _tool(
                lines,
                f"Tokens: {rng.randint(2, 9)}.{rng.randint(0, 9)}k sent, {rng.randint(100, 900)} received. Cost: $0.0{rng.randint(1, 9)} message, $0.{rng.randint(10, 99)} session.",
            )
            if "SEARCH" in answer:
                fname = answer.split("\n\n")[1].split("\n")[0]
                _tool(lines, f"Applied edit to {fname}")
                turn.tool_names.append("edit")
                if rng.random() < 0.6:
                    _tool(lines, f"Commit {rng.getrandbits(28):07x} feat: {prompt.splitlines()[0][:30]}")
                    turn.tool_names.append("git_commit")
            if i == 9:
                _tool(lines, "The LLM did not conform to the edit format.")
                turn.tool_names.append("aider")
            sess.turns.append(turn)
        if s == n_sessions - 1:
            _user(lines, "/exit")
    return AiderHistory("\n".join(lines) + "\n", sessions)
