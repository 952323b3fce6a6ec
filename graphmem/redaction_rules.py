"""The redaction rule table: provider token formats, context rules and value checks.

Provider formats follow the providers' published token prefixes and alphabets (OpenAI ``sk-``/
``sk-proj-``, Anthropic ``sk-ant-``, AWS ``AKIA``/``ASIA``, GitHub ``ghp_``/``gho_``/``ghu_``/
``ghs_``/``ghr_``/``github_pat_``, GitLab ``glpat-``, Slack ``xox?-`` and app-level ``xapp-``,
Stripe secret and restricted keys, Google ``AIza`` keys and ``ya29.`` OAuth access tokens,
Azure AD client secrets (``Q~``), Databricks ``dapi``, Shopify ``shpat_``/``shpss_``/``shpca_``/
``shppa_``, DigitalOcean ``do?_v1_``, Twilio ``SK``, SendGrid ``SG.``, npm ``npm_``, PyPI
``pypi-AgE``, Hugging Face ``hf_``, Discord, Telegram, JWT, PEM blocks). Several formats were
checked against gitleaks' public rule list (github.com/gitleaks/gitleaks, config/gitleaks.toml,
MIT licence): Slack app-level tokens, Azure AD client secrets, Databricks, Shopify and
DigitalOcean tokens. Context rules cover ``Authorization`` and API key headers,
``scheme://user:pass@host`` (the user may be empty), ``NAME_SECRET=value`` in ``.env`` lines and
inside command lines, password flags (``--password=``, ``mysql -p...``, ``curl -u user:pw``) and
``password``-like keys in JSON/YAML/INI/code. Placeholders (``<your-token>``, ``${VAR}``,
``****``, ``sk-...``, empty values) are left alone.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["MARK", "RULES", "SENSITIVE_KEY", "Rule", "is_real"]

MARK = "[REDACTED:"

_PLACEHOLDER_RE = re.compile(
    r"""^(?:
        <[^<>]*> | \$\{[^}]*\} | \$\([^)]*\) | \$[A-Za-z_][A-Za-z0-9_]* | \{\{.*\}\} | %[A-Za-z_]+%
      | (.)\1{2,} | .{0,40}(?:\.\.\.|…)
      | (?i:null|none|nil|true|false|undefined|redacted|changeme|change[-_]?me|secret|password|
           passwd|token|xxx+|todo|tbd|placeholder|example|dummy|test|your[-_ ].*|my[-_ ]?(?:secret|token|password|key)
           |\*+|replace[-_ ]?me|insert[-_ ].*|enter[-_ ].*)
    )$""",
    re.VERBOSE,
)


def is_real(value: str) -> bool:
    """Whether ``value`` looks like an actual secret rather than a placeholder."""
    v = value.strip().strip("\"'")
    if not v or MARK in v:
        return False
    return _PLACEHOLDER_RE.match(v) is None


def _real_unquoted(value: str) -> bool:
    """Stricter test for unquoted values (which may be code): digit, symbol or 16+ chars."""
    if not is_real(value) or value.startswith(("/", "./", "../", "~/")):
        return False
    return len(value) >= 16 or any(c.isdigit() for c in value) or any(c in "!@#$%^&*+/=~-." for c in value)


_CODE_VALUE = re.compile(r"[{(\[].*|[A-Za-z_]+(?:\.[A-Za-z_]\w*)*(?:[(\[{,)].*)?")


def _literal_unquoted(value: str) -> bool:
    """An unquoted value that is a literal, not code (``self.password``, ``get_token()``, ``{pw!r}``)."""
    return _real_unquoted(value) and _CODE_VALUE.fullmatch(value) is None


def _not_only_digits(value: str) -> bool:
    return is_real(value) and not value.isdigit() and len(value) >= 4


def _token_like(value: str) -> bool:
    """A credential rather than a word: has both a digit and a letter."""
    return is_real(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _discord_id(token: str) -> bool:
    """A Discord bot token's first part is the bot's numeric id in base64 (dotted code names are not)."""
    head = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except ValueError:
        return False
    return 16 <= len(decoded) <= 20 and decoded.isdigit()


@dataclass(frozen=True)
class Rule:
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
    reach: int = -1
    """With ``reach`` >= 0 every match starts at most ``reach`` characters before an occurrence of
    one of the hints, and only those positions are tried (a scan of the whole text by a pattern
    that opens with an alternation of words costs far more than a few anchored attempts)."""
    name_chars: str = ""
    """With ``reach``: the match is tried once, where the run of these characters ending at the
    hint starts (instead of at every position within reach)."""
    follow: re.Pattern[str] | None = None
    """With ``reach``: what must match at a hint's occurrence for the positions before it to be tried."""
    gate: re.Pattern[str] | None = None
    """A pattern that opens with a literal (a fast scan) and must match somewhere for the rule to run."""
    back: tuple[int, int] | None = None
    """With ``gate``: every match starts between ``back[0]`` and ``back[1]`` characters before a match
    of ``gate``, and only those positions are tried (one scan of the text instead of two)."""


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


SENSITIVE_KEY = (
    r"(?:pass(?:word|wd|phrase)|secret(?:[_-]?key)?|api[_-]?key|apikey|access[_-]?(?:key|token)"
    r"|auth[_-]?(?:token|key)|refresh[_-]?token|bearer[_-]?token|private[_-]?key|client[_-]?secret"
    r"|session[_-]?token|credentials?)"
)
_KEY_NAME = SENSITIVE_KEY + r"(?![a-z0-9_.-])"
_LINE_KEY_PREFIX = re.compile(r"[ \t-]*[\"']?[A-Za-z0-9_.-]*")


def _key_starts_line(text: str, start: int) -> bool:
    """Whether only indentation, a list dash, a quote and the key's own prefix precede it."""
    lo = max(0, start - 256)
    line = text.rfind("\n", lo, start) + 1
    if line == 0 and lo > 0:
        return False
    return _LINE_KEY_PREFIX.fullmatch(text, line, start) is not None


_ENV_NAME = (
    r"(?:[A-Z0-9]+_)*(?:[A-Z]{0,12}(?:SECRET|TOKEN|PASSWORD|PASSWD)|PASSPHRASE|PASS|PWD|CREDENTIALS?|"
    r"(?:API|ACCESS|PRIVATE|SECRET|AUTH|CLIENT|ENCRYPTION|SIGNING|MASTER|SERVICE|APP|WEBHOOK)_?KEY)"
    r"(?:_(?:BASE|B64|BASE64|VALUE|RAW|ID_SECRET|[0-9]+))?"
)
_KEY_END = re.compile(r"[a-z_-]{0,12}+[\"']?\]?[ \t]*+[:=]")  # after a hint: the key's end, then : or =
_ENV_HINTS = ("SECRET", "TOKEN", "PASS", "PWD", "CREDENTIAL", "KEY")
_ENV_ANCHORS: dict[str, Any] = {  # the name starts at most 40 characters before its hint
    "reach": 40, "name_chars": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", "follow": re.compile(r"[A-Z0-9_]*+[ \t]*=")
}
_ENV_LINE_PREFIX = re.compile(r"[ \t]*(?:export[ \t]+)?")


def _env_line_start(text: str, start: int) -> bool:
    """Whether only indentation and ``export`` precede a name on its line."""
    line = text.rfind("\n", max(0, start - 256), start) + 1
    return (line > 0 or start < 256) and _ENV_LINE_PREFIX.fullmatch(text, line, start) is not None


_SECRET_HINTS = ("pass", "secret", "key", "token", "credential")

RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        _r(
            r"-----BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE KEY((?: BLOCK)?)-----(?:[^-]|-(?!----)){0,16000}?"
            r"-----END \1PRIVATE KEY\2-----"
        ),
        ("PRIVATE KEY",),
    ),
    Rule(
        "private_key",
        _r(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?:\s|\\[nr])+(?:[A-Za-z0-9-]+: [^\n\\]*|[A-Za-z0-9+/=]{16,}))*"
        ),
        ("PRIVATE KEY",),
    ),
    Rule("anthropic_api_key", _r(r"sk-ant-(?:[a-z]+\d*-)?[A-Za-z0-9_-]{20,}"), ("sk-ant-",)),
    Rule(
        "openai_api_key",
        _r(
            r"sk-(?<![A-Za-z0-9_-]sk-)(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}"
            r"|(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{32,}(?![A-Za-z0-9_-]))"
        ),
        ("sk-",),
    ),
    Rule(
        "aws_access_key_id",
        _r(r"A(?<![A-Z0-9]A)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Z0-9])"),
        (),  # the literal first letter is the cheapest pre-test
    ),
    Rule(
        "aws_secret_access_key",
        _r(
            r"(?:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key)[\"']?\s*[:=]\s*[\"']?"
            r"([a-z0-9/+=]{40})(?![a-z0-9/+=])"
        ),
        ("secret",),
        ci=True,
        groups=(1,),
        reach=4,
    ),
    Rule(
        "github_token",
        _r(r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})"),
        (),
    ),
    Rule(
        "gitlab_token",
        _r(r"gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}"),
        (),
    ),
    Rule(
        "slack_token",
        _r(r"xox(?<![A-Za-z0-9]xox)[abposre]-(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,}"),
        ("xox",),
    ),
    Rule(
        "slack_token",  # app-level tokens: xapp-<version>-<app id>-<number>-<hex>
        _r(r"xapp-(?<![A-Za-z0-9_-]xapp-)\d-[A-Z0-9]{8,}-\d{8,}-[a-z0-9]{32,}"),
        ("xapp-",),
    ),
    Rule("slack_webhook", _r(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"), ("hooks.slack.com",)),
    Rule(
        "stripe_key",
        # secret (sk_) and restricted (rk_) keys; publishable keys (pk_) are public by design
        _r(r"[sr]k_(?<![A-Za-z0-9][sr]k_)(?:live|test)_[A-Za-z0-9]{16,}|whsec_(?<![A-Za-z0-9]whsec_)[A-Za-z0-9]{24,}"),
        ("k_live_", "k_test_", "whsec_"),
    ),
    Rule("google_api_key", _r(r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"), ("AIza",)),
    Rule("google_oauth_token", _r(r"ya29\.(?<![A-Za-z0-9_.-]ya29\.)[A-Za-z0-9_-]{20,}"), ("ya29.",)),
    Rule(  # Azure AD (Entra ID) client secrets: 3 characters, a digit, "Q~", then 31 to 34
        "azure_client_secret",
        _r(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
        ("Q~",),
    ),
    Rule("databricks_token", _r(r"dapi(?<![A-Za-z0-9_]dapi)[0-9a-f]{32}(?:-\d)?(?![A-Za-z0-9_])"), ("dapi",)),
    Rule(  # Shopify admin API access, shared secret, custom app and private app tokens
        "shopify_token", _r(r"shp(?:at|ss|ca|pa)_(?<![A-Za-z0-9]shp\w\w_)[0-9a-fA-F]{32}(?![0-9a-fA-F])"), ("shp",)
    ),
    Rule("digitalocean_token", _r(r"do[por]_v1_(?<![A-Za-z0-9]do\w_v1_)[0-9a-f]{64}(?![0-9a-f])"), ("_v1_",)),
    Rule("twilio_api_key", _r(r"SK(?<![A-Za-z0-9]SK)[0-9a-fA-F]{32}(?![0-9a-fA-F])"), ("SK",)),
    Rule(
        "twilio_auth_token",
        _r(r"twilio[\w.-]{0,20}?(?:auth[_-]?)?token[\"']?\s*[:=]\s*[\"']?([0-9a-f]{32})(?![0-9a-f])"),
        ("twilio",),
        ci=True,
        groups=(1,),
    ),
    Rule("sendgrid_api_key", _r(r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"), ("SG.",)),
    Rule("npm_token", _r(r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])"), ("npm_",)),
    Rule("pypi_token", _r(r"pypi-AgE[A-Za-z0-9_-]{50,}"), ("pypi-AgE",)),
    Rule("huggingface_token", _r(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}(?![A-Za-z0-9_])"), ("hf_",)),
    Rule(
        "azure_key",
        _r(r"(?:accountkey|sharedaccesskey|sharedaccesssignature)=([a-z0-9+/%=]{20,})"),
        ("accountkey=", "sharedaccess"),
        reach=0,
        ci=True,
        groups=(1,),
    ),
    Rule(
        "azure_key",
        _r(r"azure[\w.-]{0,30}?(?:key|secret|token)[\"']?\s*[:=]\s*[\"']?([a-z0-9+/=_-]{32,})"),
        ("azure",),
        ci=True,
        groups=(1,),
    ),
    Rule(
        "discord_webhook",
        _r(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"),
        ("discord",),
    ),
    Rule(
        "discord_bot_token",
        _r(r"[MNO](?<![A-Za-z0-9_-][MNO])[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"),
        (),
        validate=_discord_id,
        gate=_r(r"\.[A-Za-z0-9_-]{6}\."),
        back=(24, 28),  # the first dot follows the 24 to 28 characters of the id part
    ),
    Rule("vault_token", _r(r"hv[sb]\.(?<![A-Za-z0-9_.-]hv[sb]\.)[A-Za-z0-9_-]{90,}"), ("hv",)),
    Rule("sentry_token", _r(r"sntry(?:u_[0-9a-f]{64}(?![0-9a-f])|s_eyJ[A-Za-z0-9+/=_]{40,})"), ("sntry",)),
    Rule("age_secret_key", _r(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"), ("AGE-SECRET-KEY-1",)),
    Rule("linear_api_key", _r(r"lin_api_[A-Za-z0-9]{40}"), ("lin_api_",)),
    Rule("postman_api_key", _r(r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"), ("PMAK-",)),
    Rule("grafana_token", _r(r"gl(?:sa_[A-Za-z0-9]{32}_[0-9a-f]{8}|c_[A-Za-z0-9+/]{32,}={0,3})"), ()),
    Rule("telegram_bot_token", _r(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"), (":AA",)),
    Rule(
        "jwt",
        _r(r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("eyJ",),
    ),
    Rule(
        "authorization",
        _r(
            r"authorization(?<!\wauthorization)(?!\w)[\"']?\s*[:=]\s*[\"']?(?:bearer|token|basic|bot)\s+([a-z0-9._~+/=-]{8,})"
        ),
        ("authorization",),
        ci=True,
        groups=(1,),
        validate=is_real,
    ),
    Rule(
        "bearer_token",
        _r(r"bearer(?<!\wbearer)[ \t]+([a-z0-9._~+/-]{20,}=*)"),
        ("bearer",),
        ci=True,
        groups=(1,),
        validate=_token_like,
    ),
    Rule(
        "url_password",
        _r(r"://[^\s:/@?#\[\]\"'<>]{0,256}:([^\s/@?#\"'<>]{1,256})@"),  # the user may be empty
        ("://",),
        groups=(1,),
        validate=is_real,
    ),
    Rule(
        "url_secret_param",
        _r(
            r"[?&](?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|client[_-]?secret|sig"
            r"|signature)=([^&\s#\"'<>]{8,})"
        ),
        ("?", "&"),
        reach=0,
        ci=True,
        groups=(1,),
        validate=is_real,
    ),
    Rule(
        "env_secret",
        _r(_ENV_NAME + r"[ \t]*=[ \t]*(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s\"'#]+))"),
        _ENV_HINTS,
        groups=(1, 2, 3),
        validate=_not_only_digits,
        context=_env_line_start,
        **_ENV_ANCHORS,
    ),
    Rule(  # the same inside a command line: `docker run -e DB_PASS=...`, `PGPASSWORD=... psql`
        "env_secret",
        _r(_ENV_NAME + r"=(?:\"([^\"\n]*)\"|'([^'\n]*)'|([^\s\"'#;&|)]+))"),
        _ENV_HINTS,
        groups=(1, 2, 3),
        validate=_not_only_digits,
        context=lambda text, start: start > 0 and text[start - 1] in " \t;&|(=",
        **_ENV_ANCHORS,
    ),
    Rule(  # command-line flags: --password=..., --pass ...
        "password_flag",
        _r(
            r"--(?<![\w-]--)(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd|token|secret)(?:=|[ \t]+)"
            r"(?:\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'|([^\s\"'`;&|<>]{1,256}))"
        ),
        ("--",),
        ci=True,
        groups=(1, 2, 3),
        validate=_real_unquoted,
    ),
    Rule(  # password=... among other arguments (not code: password=self.password)
        "password_flag",
        _r(r"p(?<![\w.-]p)ass(?:word|wd)=([^\s\"'`;&|<>]{1,256})"),
        ("pass",),
        ci=True,
        groups=(1,),
        validate=_literal_unquoted,
    ),
    Rule(  # mysql -p<password> (a bare -p prompts for it)
        "password_flag",
        _r(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?[ \t]-p(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"'`;&|]+))"),
        ("mysql", "mariadb"),
        reach=0,
        groups=(1, 2, 3),
        validate=is_real,
    ),
    Rule(  # curl -u user:password
        "password_flag",
        _r(
            r"\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)"
            r"(?:\"[^\":\n]*:([^\"\n]+)\"|'[^':\n]*:([^'\n]+)'|[^\s:\"']*:([^\s\"']+))"
        ),
        ("curl",),
        reach=0,
        groups=(1, 2, 3),
        validate=is_real,
    ),
    Rule(  # .npmrc: //registry/:_authToken=..., :_password=...
        "secret_value",
        _r(r":_(?:authtoken|auth|password)=([^\s\"']{8,})"),
        (":_",),
        ci=True,
        groups=(1,),
        validate=is_real,
    ),
    Rule(  # XML settings: <add key="ClearTextPassword" value="..."/>, key="ApiKey" value="..."
        "secret_value",
        _r(r"key=\"[\w.:-]*?" + SENSITIVE_KEY + r"\"\s+value=\"([^\"\n]{1,1024})\""),
        ("value=",),
        ci=True,
        groups=(1,),
        validate=is_real,
    ),
    Rule(  # API key headers: X-Api-Key: ..., X-Auth-Token: ...
        "api_key_header",
        _r(r"(?<![a-z0-9-])(?:x-)?(?:api|auth)-(?:key|token):[ \t]*([a-z0-9._~+/=-]{16,})"),
        ("-key:", "-token:"),
        reach=6,  # "x-auth-token:"
        ci=True,
        groups=(1,),
        validate=_real_unquoted,
    ),
    Rule(
        "secret_value",
        _r(_KEY_NAME + r"[\"']?\]?[ \t]*[:=][ \t]*(?:\"((?:\\.|[^\"\\\n]){1,1024})\"|'((?:\\.|[^'\\\n]){1,1024})')"),
        _SECRET_HINTS,
        reach=8,  # "refresh_token", "private_key": the key starts up to 8 characters before its hint
        follow=_KEY_END,
        ci=True,
        groups=(1, 2),
        validate=is_real,
    ),
    Rule(
        "secret_value",
        _r(r"(?m)" + _KEY_NAME + r"[\"']?[ \t]*[:=][ \t]*([^\s\"'#,;{}\[\]()]{4,256}+)[ \t]*(?:#.*)?$"),
        _SECRET_HINTS,
        reach=8,  # "refresh_token", "private_key": the key starts up to 8 characters before its hint
        follow=_KEY_END,
        ci=True,
        groups=(1,),
        validate=_literal_unquoted,
        context=_key_starts_line,
    ),
)

