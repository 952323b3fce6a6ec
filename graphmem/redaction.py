"""Secret redaction: the store-wide rule applied once to every text before it is stored (turns,
tool calls, facts, summaries, injection logs).

A secret is replaced by ``[REDACTED:<kind>]``; the rest of the text is kept byte for byte.
Rules are precompiled and each is gated by a cheap substring test (``"sk-" in text`` ...), so
text without candidates costs a few substring scans. Provider formats follow the providers'
published token prefixes (OpenAI ``sk-``/``sk-proj-``, Anthropic ``sk-ant-``, AWS ``AKIA``/
``ASIA``, GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/``github_pat_``, GitLab
``glpat-``, Slack ``xox?-``, Stripe ``sk_live_``/``rk_live_``, Google ``AIza``, Twilio ``SK``,
SendGrid ``SG.``, npm ``npm_``, PyPI ``pypi-AgE``, Hugging Face ``hf_``, Discord, Telegram,
JWT, PEM blocks). Context rules cover ``Authorization`` headers, ``scheme://user:pass@host``,
``.env``-style ``NAME_SECRET=value`` lines and ``password``-like keys in JSON/YAML/INI/code.
Placeholders (``<your-token>``, ``${VAR}``, ``****``, empty values) are left alone, and
redacting twice changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .models import ToolCallIn, TurnIn

__all__ = [
    "DEFAULT_REDACTOR",
    "Redactor",
    "redact",
    "redact_turn",
    "redact_turn_with_kinds",
    "redact_value",
]

_MARK = "[REDACTED:"

_PLACEHOLDER_RE = re.compile(
    r"""^(?:
        <[^<>]*> | \$\{[^}]*\} | \$\([^)]*\) | \$[A-Za-z_][A-Za-z0-9_]* | \{\{.*\}\} | %[A-Za-z_]+%
      | (.)\1{2,} | \.\.\.+ | …
      | (?i:null|none|nil|true|false|undefined|redacted|changeme|change[-_]?me|secret|password|
           passwd|token|xxx+|todo|tbd|placeholder|example|dummy|test|your[-_ ].*|my[-_ ]?(?:secret|token|password|key)
           |\*+|replace[-_ ]?me|insert[-_ ].*|enter[-_ ].*)
    )$""",
    re.VERBOSE,
)


def _real(value: str) -> bool:
    """Whether ``value`` looks like an actual secret rather than a placeholder."""
    v = value.strip().strip("\"'")
    if not v or _MARK in v:
        return False
    return _PLACEHOLDER_RE.match(v) is None


def _real_unquoted(value: str) -> bool:
    """Stricter test for unquoted values (which may be code): digit, symbol or 16+ chars."""
    if not _real(value) or value.startswith(("/", "./", "../", "~/")):
        return False
    return len(value) >= 16 or any(c.isdigit() for c in value) or any(c in "!@#$%^&*+/=~-." for c in value)


def _not_only_digits(value: str) -> bool:
    return _real(value) and not value.isdigit() and len(value) >= 4


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]
    hints: tuple[str, ...] = ()
    """Substrings one of which must occur for the rule to run (a cheap pre-test)."""
    ci: bool = False
    """Case-insensitive: hints and pattern (written in lower case) run on an ASCII-lowered copy
    of the text, which keeps every offset; replacements are made in the original."""
    groups: tuple[int, ...] = (0,)
    """Candidate groups; the first that took part in the match is replaced."""
    validate: Callable[[str], bool] | None = None
    """Value check: a match whose value fails it is left alone."""
    context: Callable[[str, int], bool] | None = None
    """Check of the text before the match (e.g. that a key starts its line)."""


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower_same_offsets(text: str) -> str:
    """A lower-cased copy with the same offsets (``str.lower`` unless a character expands)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_SENSITIVE_KEY = (
    r"(?:pass(?:word|wd|phrase)|secret(?:[_-]?key)?|api[_-]?key|apikey|access[_-]?(?:key|token)"
    r"|auth[_-]?(?:token|key)|refresh[_-]?token|bearer[_-]?token|private[_-]?key|client[_-]?secret"
    r"|session[_-]?token|credentials?)"
)
_KEY_NAME = _SENSITIVE_KEY + r"(?![a-z0-9_.-])"
_LINE_KEY_PREFIX = re.compile(r"[ \t-]*[\"']?[A-Za-z0-9_.-]*")


def _key_starts_line(text: str, start: int) -> bool:
    """Whether only indentation, a list dash, a quote and the key's own prefix precede it."""
    lo = max(0, start - 256)
    line = text.rfind("\n", lo, start) + 1
    if line == 0 and lo > 0:
        return False
    return _LINE_KEY_PREFIX.fullmatch(text, line, start) is not None


_ENV_NAME = (
    r"(?:[A-Z0-9]+_)*(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|CREDENTIALS?|"
    r"(?:API|ACCESS|PRIVATE|SECRET|AUTH|CLIENT|ENCRYPTION|SIGNING|MASTER|SERVICE|APP|WEBHOOK)_?KEY)"
    r"(?:_(?:BASE|B64|BASE64|VALUE|RAW|ID_SECRET|[0-9]+))?"
)
_SECRET_HINTS = ("pass", "secret", "key", "token", "credential")

_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        _r(
            r"-----BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE KEY((?: BLOCK)?)-----(?:[^-]|-(?!----)){0,16000}?"
            r"-----END \1PRIVATE KEY\2-----"
        ),
        ("PRIVATE KEY",),
    ),
    _Rule(
        "private_key",
        _r(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?:\s|\\[nr])+(?:[A-Za-z0-9-]+: [^\n\\]*|[A-Za-z0-9+/=]{16,}))*"
        ),
        ("PRIVATE KEY",),
    ),
    _Rule("anthropic_api_key", _r(r"sk-ant-(?:[a-z]+\d*-)?[A-Za-z0-9_-]{20,}"), ("sk-ant-",)),
    _Rule(
        "openai_api_key",
        _r(
            r"sk-(?<![A-Za-z0-9_-]sk-)(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}"
            r"|(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{32,}(?![A-Za-z0-9_-]))"
        ),
        ("sk-",),
    ),
    _Rule(
        "aws_access_key_id",
        _r(r"A(?<![A-Z0-9]A)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Z0-9])"),
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    _Rule(
        "aws_secret_access_key",
        _r(
            r"(?:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key)[\"']?\s*[:=]\s*[\"']?"
            r"([a-z0-9/+=]{40})(?![a-z0-9/+=])"
        ),
        ("secret",),
        ci=True,
        groups=(1,),
    ),
    _Rule(
        "github_token",
        _r(r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule(
        "gitlab_token",
        _r(r"gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}"),
        ("glpat-", "gldt-", "glptt-", "glrt-"),
    ),
    _Rule(
        "slack_token",
        _r(r"xox(?<![A-Za-z0-9]xox)[abposre]-(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,}"),
        ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
    ),
    _Rule("slack_webhook", _r(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"), ("hooks.slack.com",)),
    _Rule(
        "stripe_key",
        _r(
            r"[srp]k_(?<![A-Za-z0-9][srp]k_)(?:live|test)_[A-Za-z0-9]{16,}|whsec_(?<![A-Za-z0-9]whsec_)[A-Za-z0-9]{24,}"
        ),
        ("_live_", "_test_", "whsec_"),
    ),
    _Rule("google_api_key", _r(r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"), ("AIza",)),
    _Rule("twilio_api_key", _r(r"SK(?<![A-Za-z0-9]SK)[0-9a-fA-F]{32}(?![0-9a-fA-F])"), ("SK",)),
    _Rule(
        "twilio_auth_token",
        _r(r"twilio[\w.-]{0,20}?(?:auth[_-]?)?token[\"']?\s*[:=]\s*[\"']?([0-9a-f]{32})(?![0-9a-f])"),
        ("twilio",),
        ci=True,
        groups=(1,),
    ),
    _Rule("sendgrid_api_key", _r(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"), ("SG.",)),
    _Rule("npm_token", _r(r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])"), ("npm_",)),
    _Rule("pypi_token", _r(r"pypi-AgE[A-Za-z0-9_-]{50,}"), ("pypi-AgE",)),
    _Rule("huggingface_token", _r(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}(?![A-Za-z0-9_])"), ("hf_",)),
    _Rule(
        "azure_key",
        _r(r"(?:accountkey|sharedaccesskey|sharedaccesssignature)=([a-z0-9+/%=]{20,})"),
        ("accountkey=", "sharedaccesskey=", "sharedaccesssignature="),
        ci=True,
        groups=(1,),
    ),
    _Rule(
        "azure_key",
        _r(r"azure[\w.-]{0,30}?(?:key|secret|token)[\"']?\s*[:=]\s*[\"']?([a-z0-9+/=_-]{32,})"),
        ("azure",),
        ci=True,
        groups=(1,),
    ),
    _Rule(
        "discord_webhook",
        _r(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"),
        ("discord",),
    ),
    _Rule(
        "discord_bot_token",
        _r(r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"),
        (".",),
    ),
    _Rule("telegram_bot_token", _r(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"), (":AA",)),
    _Rule(
        "jwt",
        _r(r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("eyJ",),
    ),
    _Rule(
        "authorization",
        _r(
            r"authorization(?<!\wauthorization)(?!\w)[\"']?\s*[:=]\s*[\"']?(?:bearer|token|basic|bot)\s+([a-z0-9._~+/=-]{8,})"
        ),
        ("authorization",),
        ci=True,
        groups=(1,),
        validate=_real,
    ),
    _Rule(
        "bearer_token",
        _r(r"bearer(?<!\wbearer)\s+([a-z0-9._~+/-]{20,}=*)"),
        ("bearer",),
        ci=True,
        groups=(1,),
        validate=_real,
    ),
    _Rule(
        "url_password",
        _r(r"://[^\s:/@?#\[\]\"'<>]{1,256}:([^\s/@?#\"'<>]{1,256})@"),
        ("://",),
        groups=(1,),
        validate=_real,
    ),
    _Rule(
        "url_secret_param",
        _r(
            r"[?&](?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|client[_-]?secret|sig"
            r"|signature)=([^&\s#\"'<>]{8,})"
        ),
        ("=",),
        ci=True,
        groups=(1,),
        validate=_real,
    ),
    _Rule(
        "env_secret",
        _r(r"(?m)^[ \t]*(?:export[ \t]+)?" + _ENV_NAME + r"[ \t]*=[ \t]*(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s\"'#]+))"),
        ("SECRET", "TOKEN", "PASS", "PWD", "CREDENTIAL", "KEY"),
        groups=(1, 2, 3),
        validate=_not_only_digits,
    ),
    _Rule(
        "secret_value",
        _r(_KEY_NAME + r"[\"']?[ \t]*[:=][ \t]*(?:\"((?:\\.|[^\"\\\n]){1,1024})\"|'((?:\\.|[^'\\\n]){1,1024})')"),
        _SECRET_HINTS,
        ci=True,
        groups=(1, 2),
        validate=_real,
    ),
    _Rule(
        "secret_value",
        _r(r"(?m)" + _KEY_NAME + r"[\"']?[ \t]*[:=][ \t]*([^\s\"'#,;{}\[\]()]{4,256}+)[ \t]*(?:#.*)?$"),
        _SECRET_HINTS,
        ci=True,
        groups=(1,),
        validate=_real_unquoted,
        context=_key_starts_line,
    ),
)

_SENSITIVE_KEY_RE = re.compile(r"(?:^|[_.-]|(?<=[a-z])(?=[A-Z]))" + _SENSITIVE_KEY + r"$", re.IGNORECASE)


def _apply(rule: _Rule, text: str, hay: str, found: list[str]) -> str:
    """``text`` with the matches of ``rule`` (searched in ``hay``, same offsets) replaced."""
    out: list[str] = []
    last = 0
    mark = f"{_MARK}{rule.kind}]"
    for m in rule.regex.finditer(hay):
        for g in rule.groups:
            start, end = m.span(g)
            if start < 0:
                continue
            value = text[start:end]
            if _MARK in value or (rule.validate is not None and not rule.validate(value)):
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
        self.rules: tuple[_Rule, ...] = _RULES + tuple(_Rule(kind, re.compile(p)) for kind, p in extra)
        # each rule's pre-test as one C call: a substring test for one hint, a compiled alternation
        # of the escaped hints for several (the generator over hints was most of redact()'s time)
        self._gates: tuple[tuple[_Rule, str | None, re.Pattern[str] | None], ...] = tuple(
            (rule,
             rule.hints[0] if len(rule.hints) == 1 else None,
             re.compile("|".join(re.escape(h) for h in rule.hints)) if len(rule.hints) > 1 else None)
            for rule in self.rules
        )

    def redact(self, text: str) -> tuple[str, list[str]]:
        """``text`` with secrets replaced, and the kind of each replacement in order."""
        found: list[str] = []
        if not self.enabled or not text:
            return text, found
        lower: str | None = None
        for rule, hint, hints in self._gates:
            if rule.ci:
                if lower is None:
                    lower = _lower_same_offsets(text)
                hay = lower
            else:
                hay = text
            if hint is not None:
                if hint not in hay:
                    continue
            elif hints is not None and hints.search(hay) is None:
                continue
            new = _apply(rule, text, hay, found)
            if new is not text:
                text = new
                lower = None
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
                if isinstance(k, str) and isinstance(v, str) and _SENSITIVE_KEY_RE.search(k) and _real(v):
                    kind = "password" if "pass" in k.lower() else "secret"
                    found.append(kind)
                    out[k] = f"{_MARK}{kind}]"
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
