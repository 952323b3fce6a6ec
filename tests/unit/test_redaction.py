"""Secret redaction: a corpus of realistic fake secrets that must go, look-alikes that must stay."""

from __future__ import annotations

import base64
import random

import pytest

from graphmem.integrations import Redactor, redact, redact_turn, redact_value
from graphmem.models import ToolCallIn, TurnIn
from graphmem.redaction import redact_turn_with_kinds

# (expected kind, text) -- all values are fake but have the real formats.
SECRETS: list[tuple[str, str]] = [
    (
        "openai_api_key",
        "export OPENAI=sk-proj-Zq8xN2vL4mT7pR1sW9yB3cF6hJ0kD5gA8eU2iO4nM7qX1zV3bN6mK9lP2oI5uY8tR1eW4qA7sD0fG3hJ6k",
    ),
    ("openai_api_key", "key = 'sk-4fGh7JkL9mN2pQ5rS8tV1wX3yZ6aB0cD2eF4gH6iJ8kL0mN'"),
    (
        "anthropic_api_key",
        "ANTHROPIC_KEY: sk-ant-api03-x7Yq2Lm9Nv4Rt1Sb8Kw3Pz6Hd0Jf5Gc2Ae7Ui4Oy1Tr9Ew3Qa6Zs8Xd-AbC1dE2fGAA",
    ),
    ("aws_access_key_id", "aws_access_key_id = AKIAZ7Q4MXR2LNP8WBT3"),
    ("aws_access_key_id", "temp creds ASIAY3K9TQW2MZL7RNP4 expire soon"),
    ("aws_secret_access_key", "aws_secret_access_key = 9xK2mQ7vL4tR8pW1sZ6yB3nC5hJ0fD2gA7eU4iOp"),
    ("github_token", "git clone https://x:ghp_8fKq2Lm9Nv4Rt1Sb8Kw3Pz6Hd0Jf5Gc2Ae7Ui@github.com/o/r"),
    ("github_token", "GH=github_pat_11ABCDEFG0xYz9Q8w7E6r5T4_y3U2i1O0pLkJhGfDsAqWeRtYuIoPlKjHgFdSaZxCvBnM1234567"),
    ("github_token", "token gho_1234567890abcdefghijABCDEFGHIJ123456"),
    ("gitlab_token", "CI_TOKEN glpat-4xZ9qW2eR7tY1uI8oP3a"),
    ("slack_token", "slack: xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack_webhook", "POST https://hooks.slack.com/services/T0000AAAA/B0000BBBB/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("stripe_key", "stripe.api_key = sk_live_51HqLyjWDarjtT1zdp7dcXVq2mT9k"),
    ("stripe_key", "rk_live_4eC39HqLyjWDarjtT1zdp7dcXy"),
    ("google_api_key", "maps?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("twilio_api_key", "TWILIO SK2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d"),
    ("twilio_auth_token", "TWILIO_AUTH_TOKEN: '0123456789abcdef0123456789abcdef'"),
    ("sendgrid_api_key", "SENDGRID=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"),
    ("npm_token", "//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    (
        "pypi_token",
        "password = pypi-AgEIcHlwaS5vcmcCJGE4ZjY5YzZhLWE2YjktNGI0Mi1hYjU5LTQ4Y2I5ZWQ1OWE4NgACKlszLCJlZmJmNGY5NCJd",
    ),
    ("huggingface_token", "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    (
        "azure_key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4"
        "Zm9vYmFyYmF6cXV4Zm9vYmFyYmE9PQ==;EndpointSuffix=core.windows.net",
    ),
    ("discord_bot_token", "bot.run('MTA4NzY1NDMyMTA5ODc2NTQzMg.GhIjKl.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab')"),
    ("discord_webhook", "https://discord.com/api/webhooks/1234567890/AbCdEfGhIjKl-MnOpQrSt_UvWx"),
    ("telegram_bot_token", "TELEGRAM 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"),
    (
        "jwt",
        "cookie: session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    ("authorization", "curl -H 'Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543aB9x' https://api"),
    ("authorization", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=="),
    ("bearer_token", "use header bearer abcdef0123456789ABCDEFGHIJ.xyz"),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7vbqajDw4o6gJy8UtmIbkcpnkO3Kwc4qsEnSZp/TR+fQi62F\n"
        "79ZHMrXuhVd3Xz+EpkSgQ4fBBsQ2uh0m4nnwCD6c53Ma9CC7l2jvZqrSKWQHgKBo\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private_key",
        '"key": "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW'
        '\\n-----END OPENSSH PRIVATE KEY-----\\n"',
    ),
    ("private_key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n(truncated)"),
    ("url_password", "DATABASE_URL=postgres://billing:Sup3rS3cret!@db.internal:5432/billing"),
    ("url_password", "redis://default:p4ssw0rdXyz@cache:6379/0"),
    ("env_secret", "DB_PASSWORD=hunter2-Xq9"),
    ("env_secret", 'export JWT_SECRET="a very long secret phrase 42"'),
    ("env_secret", "STRIPE_WEBHOOK_KEY=whk_9f8e7d6c5b4a"),
    ("secret_value", '{"user": "admin", "password": "CorrectHorse#Battery9"}'),
    ("secret_value", "database:\n  password: s3cr3t-Pa55\n  host: db"),
    ("secret_value", "client_secret = 'q9W8e7R6t5Y4u3I2'"),
    ("url_secret_param", "GET /v1/data?access_token=Zx81kLmq02PqRstU HTTP/1.1"),
]

LOOKALIKES: list[str] = [
    "The sk- prefix identifies OpenAI keys; sk-learn is not a thing, scikit-learn is.",
    "commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788f0e1d2 fixed it",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "Please enter your password below and press Enter.",
    "Open https://example.com/docs?page=2&sort=asc for details",
    "TOKEN=",
    "API_TOKEN=<your-token>",
    "MAX_TOKENS=4096",
    "GITHUB_TOKEN=${GITHUB_TOKEN}",
    "the ghp_ prefix is for personal tokens, e.g. ghp_xxx",
    "AKIA keys are long-lived; ASIA keys are temporary",
    "He was the bearer of bad news.",
    "mail me at jane.doe@example.com or git@github.com:org/repo.git",
    "a JWT header looks like eyJhbGciOiJIUzI1NiJ9 on its own",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "password: <your-password>",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA7vbqajDw4o6gJy8UtmIb\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    "postgres://localhost:5432/billing and http://user@host/path",
    "xoxo, see you tomorrow",
    "npm_config_cache=/tmp/npm",
    "from huggingface_hub import hf_hub_download",
    "secret_name: my-app-secret",
    "the AIza prefix marks Google keys",
    "image: python@sha256:9b6a7d0c9b8e7f6a5d4c3b2a19087f6e5d4c3b2a19087f6e5d4c3b2a1908",
    "pip install pypi-simple",
    '"password_hint": "name of your first pet"',
    "Authorization: Bearer <token>",
    "password = os.environ['DB_PASSWORD']",
    "Set PASSWORD_MIN_LENGTH=12 in settings",
    "token_type: bearer",
    "See RFC 7519 for JWT; use sk_test_ keys in CI",
    "The function calc_secret_key(x) returns a hash",
    "postgres://user:password@localhost/db (replace password with yours)",
    "[REDACTED:openai_api_key] was already removed",
    "DB_PASSWORD=changeme",
    "credentials: ~/.config/gcloud/application_default_credentials.json",
]


def test_corpus_sizes() -> None:
    assert len({kind for kind, _ in SECRETS}) >= 20
    assert len(SECRETS) >= 20
    assert len(LOOKALIKES) >= 20


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SECRETS)])
def test_secret_is_redacted(kind: str, text: str) -> None:
    out, kinds = redact(text)
    assert kind in kinds, (out, kinds)
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalike_survives(text: str) -> None:
    out, kinds = redact(text)
    assert out == text
    assert kinds == []


def test_only_the_secret_is_replaced() -> None:
    text = "deploy with GITHUB_TOKEN set; url https://x:ghp_8fKq2Lm9Nv4Rt1Sb8Kw3Pz6Hd0Jf5Gc2Ae7Ui@github.com/o/r done"
    out, _ = redact(text)
    assert out == "deploy with GITHUB_TOKEN set; url https://x:[REDACTED:github_token]@github.com/o/r done"
    pem = SECRETS[[k for k, _ in SECRETS].index("private_key")][1]
    out, _ = redact(f"before\n{pem}\nafter")
    assert out == "before\n[REDACTED:private_key]\nafter"
    out, _ = redact("postgres://billing:Sup3rS3cret!@db:5432/x")
    assert out == "postgres://billing:[REDACTED:url_password]@db:5432/x"
    out, _ = redact('{"password": "CorrectHorse#Battery9", "user": "bob"}')
    assert out == '{"password": "[REDACTED:secret_value]", "user": "bob"}'


def test_redaction_is_idempotent_and_keeps_unicode() -> None:
    text = "Clé: sk-4fGh7JkL9mN2pQ5rS8tV1wX3yZ6aB0cD2eF4gH6iJ8kL0mN — voilà 🎉\nİstanbul\npassword: hunter2X9"
    once, kinds = redact(text)
    twice, kinds2 = redact(once)
    assert once == twice and kinds2 == []
    assert "voilà 🎉" in once and "İstanbul" in once
    assert kinds == ["openai_api_key", "secret_value"]


def test_disabled_and_empty() -> None:
    text = "sk-4fGh7JkL9mN2pQ5rS8tV1wX3yZ6aB0cD2eF4gH6iJ8kL0mN"
    assert redact(text, enabled=False) == (text, [])
    assert redact("") == ("", [])
    assert Redactor(enabled=False).redact(text) == (text, [])


def test_extra_rules() -> None:
    r = Redactor(extra=[("internal_id", r"ACME-[0-9]{6}")])
    assert r.redact("ticket ACME-123456 open") == ("ticket [REDACTED:internal_id] open", ["internal_id"])


def test_redact_value_uses_key_names() -> None:
    value = {
        "password": "hunter2",
        "dbPassword": "x9",
        "api_key": "abc",
        "nested": [{"token": "short", "Authorization": "Bearer 8f14e45fceea167a5a36dedd4bea2543"}],
        "count": 3,
        "password_hint": "first pet",
        "token_count": "12",
    }
    out, kinds = redact_value(value)
    assert out["password"] == "[REDACTED:password]"
    assert out["dbPassword"] == "[REDACTED:password]"
    assert out["api_key"] == "[REDACTED:secret]"
    assert out["nested"][0]["Authorization"] == "Bearer [REDACTED:authorization]"
    assert out["count"] == 3 and out["password_hint"] == "first pet" and out["token_count"] == "12"
    assert value["password"] == "hunter2"  # the input is not modified
    assert "password" in kinds


def test_redact_value_very_deep_nesting() -> None:
    deep: object = {"note": "key sk-4fGh7JkL9mN2pQ5rS8tV1wX3yZ6aB0cD2eF4gH6iJ8kL0mN"}
    for _ in range(200):
        deep = {"child": deep}
    out, kinds = redact_value(deep)
    assert kinds == ["openai_api_key"]
    assert "sk-4fGh7" not in str(out)


def test_redact_turn_covers_messages_args_and_results() -> None:
    key = "sk-proj-Zq8xN2vL4mT7pR1sW9yB3cF6hJ0kD5gA8eU2iO4nM7qX1zV3bN6mK9lP2oI5uY8tR1eW4qA7s"
    turn = TurnIn(
        user_message=f"use {key}",
        assistant_message="set AWS key AKIAZ7Q4MXR2LNP8WBT3",
        tool_calls=[
            ToolCallIn(name="Bash", args={"command": f"export OPENAI_API_KEY={key}"}, result="ok"),
            ToolCallIn(name="Write", args='{"password": "CorrectHorse#Battery9"}', result=f"wrote {key}"),
            ToolCallIn(name="Read", args=None, result=None),
        ],
        source_id="u1",
    )
    out, kinds = redact_turn_with_kinds(turn)
    dump = out.model_dump_json()
    assert key not in dump and "AKIAZ7Q4MXR2LNP8WBT3" not in dump and "CorrectHorse" not in dump
    assert out.source_id == "u1" and out.tool_calls[2].result is None
    assert len(kinds) == 5
    assert redact_turn(turn).model_dump() == out.model_dump()
    assert redact_turn(turn, enabled=False) is turn


def _mb_text(seed: int) -> str:
    rng = random.Random(seed)
    words = ["the", "invoice", "total", "rounding", "é", "à", "🎉", "def", "return", "class", "self", "value", "test"]
    parts: list[str] = []
    size = 0
    while size < 1_000_000:
        if rng.random() < 0.002:
            piece = rng.choice(SECRETS)[1]
        elif rng.random() < 0.01:
            piece = rng.choice(LOOKALIKES)
        elif rng.random() < 0.01:
            piece = base64.b64encode(rng.randbytes(600)).decode()
        else:
            piece = " ".join(rng.choice(words) for _ in range(12))
        parts.append(piece)
        size += len(piece) + 1
    return "\n".join(parts)[:1_000_000]


@pytest.mark.timeout(300)  # a hang guard only; the speed is measured by `graphmem bench redaction`
def test_one_megabyte_of_mixed_text() -> None:
    text = _mb_text(1)
    out, kinds = redact(text)
    assert kinds
    assert all(secret not in out for _, secret in SECRETS if secret in text)


@pytest.mark.parametrize(
    "text",
    [
        "-----BEGIN RSA PRIVATE KEY-----\n" * 20000,
        "password=" * 50000,
        "a" * 500_000,
        "://" + "a:" * 200_000,
        'secret="' * 50000,
    ],
)
@pytest.mark.timeout(300)  # a hang guard (catastrophic backtracking) only; speed: `graphmem bench redaction`
def test_pathological_inputs_are_redacted(text: str) -> None:
    out, _ = redact(text)
    assert isinstance(out, str) and out
