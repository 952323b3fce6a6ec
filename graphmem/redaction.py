"""Secret redaction: the store-wide rule applied once to every text before it is stored (turns,
tool calls, facts, summaries, injection logs).

A secret is replaced by ``[REDACTED:<kind>]``; the rest of the text is kept byte for byte.
Rules (:mod:`.redaction_rules`) are precompiled and each is gated by a cheap substring test
(``"sk-" in text`` ...), so text without candidates costs a few substring scans. Tool arguments
are walked as JSON values: a string is redacted as text, and the value of a key that names a
secret (``password``, ``pwd``, ``DB_PASS``, ``apiKey``, ``Authorization`` ...) is replaced
whole (an ``Authorization`` value keeps its scheme). Redacting twice changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .models import ToolCallIn, TurnIn
from .redaction_rules import MARK, RULES, SENSITIVE_KEY, Rule, is_real

__all__ = [
    "DEFAULT_REDACTOR",
    "Redactor",
    "redact",
    "redact_turn",
    "redact_turn_with_kinds",
    "redact_value",
]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower_same_offsets(text: str) -> str:
    """A lower-cased copy with the same offsets (``str.lower`` unless a character expands)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_SENSITIVE_KEY_RE = re.compile(
    r"(?:^|[_.-]|(?-i:(?<=[a-z])(?=[A-Z])))(?:" + SENSITIVE_KEY + r"|pass|pwd)$", re.IGNORECASE
)
_AUTH_KEY_RE = re.compile(r"(?:proxy-)?authorization", re.IGNORECASE)
_AUTH_VALUE_RE = re.compile(r"((?:basic|bearer|token|bot|digest|negotiate)[ \t]+)?([^\s]{8,})", re.IGNORECASE)


def _secret_entry(key: str, value: str) -> str | None:
    """The replacement of a dict entry whose key names a secret, or None to redact it as text."""
    if _AUTH_KEY_RE.fullmatch(key):  # keep the scheme: "Basic [REDACTED:authorization]"
        m = _AUTH_VALUE_RE.fullmatch(value.strip())
        if m is None or not is_real(m.group(2)):
            return None
        return f"{m.group(1) or ''}{MARK}authorization]"
    if not _SENSITIVE_KEY_RE.search(key) or not is_real(value) or value.startswith(("/", "./", "../", "~/")):
        return None
    return f"{MARK}{'password' if 'pass' in key.lower() or key.lower().endswith('pwd') else 'secret'}]"


def _matches(rule: Rule, hay: str, absent: Iterable[str] = ()) -> Iterator[re.Match[str]]:
    """The matches of ``rule`` in ``hay``, left to right (tried near the hints with ``reach``;
    ``absent``: hints known not to occur)."""
    if rule.back is not None and rule.gate is not None:
        near, far = rule.back
        end = 0
        g = rule.gate.search(hay)
        while g is not None:
            for start in range(max(end, g.start() - far), g.start() - near + 1):
                m = rule.regex.match(hay, start)
                if m is not None:
                    yield m
                    end = m.end()
                    break
            g = rule.gate.search(hay, max(end, g.start() + 1))
        return
    if rule.reach < 0:
        yield from rule.regex.finditer(hay)
        return
    starts: set[int] = set()
    for hint in rule.hints:
        if hint in absent:
            continue
        i = hay.find(hint)
        while i >= 0:
            starts.add(i)
            i = hay.find(hint, i + 1)
    end = 0
    for idx in sorted(starts):
        if idx < end:
            continue
        if rule.follow is not None and rule.follow.match(hay, idx) is None:
            continue
        if rule.name_chars:
            start = idx
            while start > max(end, idx - rule.reach) and hay[start - 1] in rule.name_chars:
                start -= 1
            m = rule.regex.match(hay, start)
            if m is not None:
                yield m
                end = max(m.end(), start + 1)
            continue
        for start in range(max(end, idx - rule.reach), idx + 1):
            m = rule.regex.match(hay, start)
            if m is not None:
                yield m
                end = max(m.end(), start + 1)
                break


def _apply(rule: Rule, text: str, hay: str, found: list[str], absent: Iterable[str] = ()) -> str:
    """``text`` with the matches of ``rule`` (searched in ``hay``, same offsets) replaced."""
    out: list[str] = []
    last = 0
    mark = f"{MARK}{rule.kind}]"
    for m in _matches(rule, hay, absent):
        for g in rule.groups:
            start, end = m.span(g)
            if start < 0:
                continue
            value = text[start:end]
            if MARK in value or (rule.validate is not None and not rule.validate(value)):
                break
            if rule.context is not None and not rule.context(text, m.start()):
                break
            found.append(rule.kind)
            out.append(text[last:start])
            out.append(mark)
            last = end
            break
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


class Redactor:
    """Applies the redaction rules; ``extra`` adds ``(kind, regex)`` rules (whole match replaced)."""

    def __init__(self, *, enabled: bool = True, extra: Iterable[tuple[str, str]] = ()) -> None:
        self.enabled = enabled
        self.rules: tuple[Rule, ...] = RULES + tuple(Rule(kind, re.compile(p)) for kind, p in extra)
        # each rule's pre-test: substring tests of its hints, each hint tested once per text and
        # shared by the rules that name it (a case-insensitive hint is keyed with a leading NUL)
        self._gates: tuple[tuple[Rule, tuple[tuple[str, str], ...]], ...] = tuple(
            (rule, tuple((("\0" if rule.ci else "") + h, h) for h in rule.hints)) for rule in self.rules
        )

    def redact(self, text: str) -> tuple[str, list[str]]:
        """``text`` with secrets replaced, and the kind of each replacement in order."""
        found: list[str] = []
        if not self.enabled or not text:
            return text, found
        lower: str | None = None
        seen: dict[str, bool] = {}
        for rule, hints in self._gates:
            if rule.ci:
                if lower is None:
                    lower = _lower_same_offsets(text)
                hay = lower
            else:
                hay = text
            if hints:
                for key, hint in hints:
                    present = seen.get(key)
                    if present is None:
                        present = seen[key] = hint in hay
                    if present:
                        break
                else:
                    continue
            if rule.gate is not None and rule.back is None and rule.gate.search(hay) is None:
                continue  # (a rule with ``back`` scans for its gate itself)
            absent = [h for k, h in hints if seen.get(k) is False] if rule.reach >= 0 else ()
            new = _apply(rule, text, hay, found, absent)
            if new is not text:
                text = new
                lower = None  # (the hints seen stay valid: a replacement only adds its own mark)
        return text, found

    def redact_value(self, value: Any) -> tuple[Any, list[str]]:
        """A JSON-like value with every string redacted; values of secret-named keys replaced."""
        found: list[str] = []
        return self._value(value, found, 0), found

    def _value(self, value: Any, found: list[str], depth: int) -> Any:
        if depth > 50 and isinstance(value, dict | list | tuple):
            try:  # too deep to walk: redact its JSON text instead
                text = json.dumps(value, ensure_ascii=False, default=str)
            except (TypeError, ValueError, RecursionError):
                return value
            redacted, kinds = self.redact(text)
            found.extend(kinds)
            return redacted if kinds else value
        if isinstance(value, str):
            text, kinds = self.redact(value)
            found.extend(kinds)
            return text
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                entry = _secret_entry(k, v) if isinstance(k, str) and isinstance(v, str) else None
                if entry is not None:
                    found.append(entry[entry.index(MARK) + len(MARK):-1])
                    out[k] = entry
                else:
                    out[k] = self._value(v, found, depth + 1)
            return out
        if isinstance(value, list | tuple):
            return [self._value(v, found, depth + 1) for v in value]
        return value

    def redact_turn(self, turn: TurnIn) -> tuple[TurnIn, list[str]]:
        """A copy of ``turn`` with messages, tool arguments and results redacted."""
        found: list[str] = []
        if not self.enabled:
            return turn, found
        user, k1 = self.redact(turn.user_message)
        assistant, k2 = self.redact(turn.assistant_message)
        found += k1 + k2
        calls: list[ToolCallIn] = []
        for call in turn.tool_calls:
            args, ka = self.redact_value(call.args)
            result, kr = self.redact(call.result) if call.result is not None else (None, [])
            found += ka + kr
            calls.append(call.model_copy(update={"args": args, "result": result}))
        update = {"user_message": user, "assistant_message": assistant, "tool_calls": calls}
        return turn.model_copy(update=update), found


DEFAULT_REDACTOR = Redactor()


def redact(text: str, *, enabled: bool = True) -> tuple[str, list[str]]:
    """``text`` with secrets replaced by ``[REDACTED:<kind>]``, and the kinds replaced."""
    if not enabled:
        return text, []
    return DEFAULT_REDACTOR.redact(text)


def redact_value(value: Any, *, enabled: bool = True) -> tuple[Any, list[str]]:
    """A JSON-like value (e.g. tool arguments) with its strings redacted."""
    if not enabled:
        return value, []
    return DEFAULT_REDACTOR.redact_value(value)


def redact_turn_with_kinds(turn: TurnIn, *, enabled: bool = True) -> tuple[TurnIn, list[str]]:
    """``redact_turn`` plus the kinds of the replacements made."""
    if not enabled:
        return turn, []
    return DEFAULT_REDACTOR.redact_turn(turn)


def redact_turn(turn: TurnIn, *, enabled: bool = True) -> TurnIn:
    """A copy of ``turn`` with user/assistant messages, tool arguments and results redacted."""
    return redact_turn_with_kinds(turn, enabled=enabled)[0]
