"""The framework adapters stay optional: graphmem imports without any framework installed, and the
item filters and namespace patterns the LangGraph store relies on behave as LangGraph documents."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphmem.errors import InvalidInput
from graphmem.items import check_filter, matches_filter, namespace_matches

BLOCK = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("langgraph", "langchain_core", "agents"):
            raise ImportError(f"blocked: {name}")
        return None
sys.meta_path.insert(0, Block())
"""


def test_graphmem_imports_without_any_framework() -> None:
    code = BLOCK + """
import graphmem, graphmem.adapters, graphmem.items, graphmem.memory, graphmem.aio, graphmem.mcp_tools, graphmem.cli
from graphmem import GraphMemory
for name in ("langgraph", "langchain", "openai_agents"):
    try:
        __import__(f"graphmem.adapters.{name}")
    except ImportError as e:
        assert "blocked" in str(e), e
    else:
        raise AssertionError(f"graphmem.adapters.{name} imported without its framework")
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


@pytest.mark.parametrize(("value", "flt", "expected"), [
    ({"a": 1}, None, True),
    ({"a": 1}, {"a": 1}, True),
    ({"a": 1}, {"a": 2}, False),
    ({"a": 1}, {"b": None}, True),  # a missing key reads as null
    ({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}, True),
    ({"a": {"b": 1}}, {"a": {"b": 2}}, False),
    ({"a": 5}, {"a": {"$gt": 4, "$lte": 5}}, True),
    ({"a": 5}, {"a": {"$lt": 5}}, False),
    ({"a": "x"}, {"a": {"$gt": 1}}, False),  # not a number: no match, no error
    ({"a": 1}, {"a": {"$ne": 2}}, True),
    ({"a": [1, "x"]}, {"a": [1, "x"]}, True),
    ({"a": [1, "x"]}, {"a": [1]}, False),
    ({"a": 1}, {"a": {"$eq": 1}, "b": {"$eq": None}}, True),
])
def test_value_filters(value: dict[str, object], flt: dict[str, object] | None, expected: bool) -> None:
    assert matches_filter(value, flt) is expected


def test_an_unknown_operator_is_named() -> None:
    with pytest.raises(InvalidInput, match=r"filter\.a\.b: unknown operator \$like"):
        check_filter({"a": {"b": {"$like": 1}}})
    check_filter({"a": {"$gte": 1}, "b": {"c": 1}})


@pytest.mark.parametrize(("ns", "path", "suffix", "expected"), [
    (("a", "b", "c"), ("a",), False, True),
    (("a", "b", "c"), ("*", "b"), False, True),
    (("a", "b", "c"), ("b",), False, False),
    (("a", "b", "c"), ("c",), True, True),
    (("a", "b", "c"), ("b", "*"), True, True),
    (("a",), ("a", "b"), False, False),
    (("a",), (), False, True),
])
def test_namespace_patterns(ns: tuple[str, ...], path: tuple[str, ...], suffix: bool, expected: bool) -> None:
    assert namespace_matches(ns, path, suffix=suffix) is expected


def test_a_framework_tool_call_json_cannot_hold_is_kept_as_text_not_refused() -> None:
    # a model's NaN argument or a blank tool name made the adapters raise pydantic's ValidationError
    # and the whole exchange was lost
    from langchain_core.messages import AIMessage, HumanMessage

    from graphmem.adapters.langchain import messages_to_turns
    from graphmem.adapters.openai_agents import items_to_turn
    from graphmem.models import foreign_args

    assert foreign_args({"a": 1}) == {"a": 1} and foreign_args(None) is None and foreign_args("x") == "x"
    loop: dict[str, object] = {}
    loop["self"] = loop
    assert foreign_args({"x": float("nan")}) == '{"x": NaN}' and isinstance(foreign_args(loop), str)
    (turn,) = messages_to_turns([HumanMessage("go"), AIMessage("", tool_calls=[
        {"name": " ", "args": {"x": float("inf")}, "id": "c1"}])])
    (call,) = turn["tool_calls"]
    assert call.name == "tool" and call.args == '{"x": Infinity}'
    found = items_to_turn([{"role": "user", "content": "go"},
                           {"type": "function_call", "name": "", "arguments": '{"x": NaN}', "call_id": "c2"},
                           {"role": "assistant", "content": "done"}])
    assert found is not None and found["tool_calls"][0].name == "function"
    assert found["tool_calls"][0].args == '{"x": NaN}'
