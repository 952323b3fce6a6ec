"""The checks of a caller's plain arguments, and the context config that uses them."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graphmem import InvalidInput
from graphmem.arguments import count, optional_text, required_text, score, text_list
from graphmem.models import ToolCallIn, args_text, reference_time
from graphmem.retrieval import ContextConfig
from graphmem.retrieval.timewindow import parse_time_window


def test_count_takes_integers_in_range_only() -> None:
    assert count(3, "limit") == 3 and count(0, "limit", minimum=0) == 0
    for bad, said in ((True, "not bool"), ("5", "not str"), (None, "not NoneType"), (2.0, "not float"),
                      (0, "between 1 and"), (2**70, "between 1 and")):
        with pytest.raises(InvalidInput, match=f"^limit must be .*{said}"):
            count(bad, "limit")


def test_score_takes_finite_numbers_in_bounds() -> None:
    assert score(1, "min_score") == 1.0 and score(-0.5, "min_score", low=-1.0) == -0.5
    for bad in (math.nan, math.inf, "0.5", True, None):
        with pytest.raises(InvalidInput, match=r"^min_score must be a"):
            score(bad, "min_score")
    with pytest.raises(InvalidInput, match=r"^importance must be within \[0, 1\], not 1.5$"):
        score(1.5, "importance", low=0.0, high=1.0)


def test_texts_and_lists_of_texts() -> None:
    assert optional_text(None, "reason") is None and optional_text("a\ud800", "reason") == "a\ufffd"
    assert required_text("  x ", "subject") == "x"
    for bad in ("", "  ", None, 5):
        with pytest.raises(InvalidInput, match=r"^subject must be"):
            required_text(bad, "subject")
    assert text_list(None, "subjects") == [] and text_list(("a", "b"), "subjects") == ["a", "b"]
    assert text_list({"a"}, "subjects") == ["a"]
    for bad, said in (("alice", r"not a single str \(write \['alice'\]\)"), (b"x", "not a single bytes"),
                      (5, "not int"), ({"a": 1}, "not dict")):
        with pytest.raises(InvalidInput, match=f"^subjects must be a list of strings, {said}"):
            text_list(bad, "subjects")
    with pytest.raises(InvalidInput, match=r"^subjects\[1\] must be a string, not NoneType$"):
        text_list(["a", None], "subjects")


def test_a_context_config_names_its_bad_knob() -> None:
    assert ContextConfig(timezone="Europe/Paris", min_score=0.2).timezone == "Europe/Paris"
    for bad, field in (({"scope": "bogus"}, "scope"), ({"timezone": "Mars/Olympus"}, "timezone"),
                       ({"min_score": math.nan}, "min_score"), ({"turn_hits": -1}, "turn_hits"),
                       ({"budget_chars": "12000"}, "budget_chars"), ({"mode": "fuzzy"}, "mode"),
                       ({"dedup_threshold": 2}, "dedup_threshold"), ({"locale": None}, "locale"),
                       ({"facts": "yes"}, "facts")):
        with pytest.raises(InvalidInput, match=f"^{field} must"):
            ContextConfig(**bad)  # type: ignore[arg-type]


def test_tool_call_arguments_need_a_json_form_and_a_name() -> None:
    assert ToolCallIn(name="Bash", args={"b": 1, "a": [1.5, None]}).args_json() == '{"a": [1.5, null], "b": 1}'
    assert ToolCallIn(name="Bash", args={1: "x", "k": "y"}).args_json() in ('{"1": "x", "k": "y"}', '{"k": "y", "1": "x"}')
    cyclic: dict[str, object] = {}
    cyclic["self"] = cyclic
    for args, said in (({"x": math.nan}, "NaN and infinity"), ([math.inf], "NaN and infinity"), (cyclic, "contain themselves")):
        with pytest.raises(ValueError, match=said):
            ToolCallIn(name="Bash", args=args)
        with pytest.raises(ValueError, match=said):
            args_text(args)
    with pytest.raises(ValueError, match="a tool call needs a name"):
        ToolCallIn(name=" \n")


def test_a_reference_time_leaves_room_for_the_windows_reckoned_from_it() -> None:
    assert reference_time(datetime(2026, 5, 1)) == datetime(2026, 5, 1, tzinfo=UTC)
    for bad in (datetime.max, datetime.min, datetime(1, 12, 31, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)):
        with pytest.raises(InvalidInput, match=r"^at must fall between the years 2 and 9998"):
            reference_time(bad, "at")
    for now in (datetime(2, 1, 1, tzinfo=UTC), datetime(9998, 12, 31, 23, 59, tzinfo=UTC)):
        # a window that would start before year 1 is no window at all, not an OverflowError
        parse_time_window("what we did a year ago, in the last 400 years", now)


def test_an_error_line_shows_a_long_value_cut_with_its_length() -> None:
    from graphmem.errors import quoted
    from graphmem.facts import FactScope, parse_ttl
    from graphmem.files import resolve_file

    assert quoted("7d") == "'7d'"
    assert quoted("x" * 5000) == "'" + "x" * 78 + "… (5000 characters)"
    # each of these echoed a 20,000-character argument whole (an MCP client got a screenful)
    for check in (lambda: parse_ttl("y" * 20_000), lambda: FactScope.parse("z" * 20_000),
                  lambda: resolve_file("\x00" * 20_000, cwd="/p", project="/p")):
        with pytest.raises(InvalidInput) as caught:
            check()
        assert len(str(caught.value)) < 200 and "20000 characters" in str(caught.value)
