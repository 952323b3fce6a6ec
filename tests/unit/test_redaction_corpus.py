"""The labelled secrets corpus (tests/data/secrets_corpus.py) through the redactor: every secret's
span is gone, every look-alike comes back unchanged, and nothing depends on the clock."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphmem.integrations import redact, redact_value
from tests.data.secrets_corpus import LOOKALIKES, SECRETS, Lookalike, Secret


def _redacted(payload: str | dict[str, Any]) -> tuple[str, list[str]]:
    if isinstance(payload, str):
        return redact(payload)
    out, kinds = redact_value(payload)
    return json.dumps(out), kinds


def test_corpus_is_large_and_deterministic() -> None:
    assert len(SECRETS) >= 100 and len(LOOKALIKES) >= 100
    assert len({s.provider for s in SECRETS}) >= 30
    assert {s.context for s in SECRETS} >= {"prose", "shell", "json", "env", "url", "code"}
    assert all(s.needle in s.text for s in SECRETS)
    import importlib

    import tests.data.secrets_corpus as corpus

    again = importlib.reload(corpus)
    assert [s.secret for s in again.SECRETS] == [s.secret for s in SECRETS]


@pytest.mark.parametrize("case", SECRETS, ids=[f"{s.provider}-{s.context}-{i}" for i, s in enumerate(SECRETS)])
def test_every_secret_span_is_redacted(case: Secret) -> None:
    out, kinds = _redacted(case.payload)
    assert case.needle not in out, out
    assert kinds and "[REDACTED:" in out


@pytest.mark.parametrize("case", LOOKALIKES, ids=[f"{lk.category}-{i}" for i, lk in enumerate(LOOKALIKES)])
def test_no_lookalike_is_changed(case: Lookalike) -> None:
    out, kinds = _redacted(case.payload)
    assert out == case.text
    assert kinds == []


def test_only_the_span_is_replaced() -> None:
    """Outside the secret the text is kept byte for byte."""
    for case in SECRETS:
        if not isinstance(case.payload, str):
            continue
        out, _ = redact(case.payload)
        head, _, tail = case.payload.partition(case.secret)
        assert out.startswith(head[: max(0, len(head) - 40)])
        assert out.endswith(tail[-20:] if tail else "")
