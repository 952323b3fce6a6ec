"""A labelled corpus for secret redaction: real-looking (fake) secrets and look-alikes.

Every random part comes from one ``random.Random`` with a fixed seed, so the corpus is the same
on every run. Each secret has the formats its provider publishes (prefix, alphabet, length); none
is a real credential. ``SECRETS`` entries carry the provider, the context the secret appears in
and the exact span that must disappear; ``LOOKALIKES`` must come back unchanged. A payload is a
string (a message or a tool result) or a dict (tool arguments, redacted key by key).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from dataclasses import dataclass
from typing import Any

__all__ = ["LOOKALIKES", "SECRETS", "Lookalike", "Secret", "typical_turn"]

_RNG = random.Random(20261125)
_ALNUM = string.ascii_letters + string.digits
_UPPER_NUM = string.ascii_uppercase + string.digits
_LOWER_NUM = string.ascii_lowercase + string.digits
_HEX = "0123456789abcdef"
_B64URL = _ALNUM + "-_"


def _pick(alphabet: str, n: int) -> str:
    while True:
        s = "".join(_RNG.choice(alphabet) for _ in range(n))
        # real tokens mix digits and letters; avoid an all-letter draw that reads like a word
        if n < 8 or (any(c.isdigit() for c in s) or not any(c.isdigit() for c in alphabet)):
            return s


def _digits(n: int) -> str:
    return str(_RNG.randint(1, 9)) + "".join(_RNG.choice(string.digits) for _ in range(n - 1))


@dataclass(frozen=True)
class Secret:
    provider: str
    context: str
    payload: str | dict[str, Any]
    secret: str

    @property
    def text(self) -> str:
        """The payload as text (a dict as its JSON, which is what a text scanner sees)."""
        return self.payload if isinstance(self.payload, str) else json.dumps(self.payload)

    @property
    def needle(self) -> str:
        """The secret as it appears in ``text`` (JSON-escaped in a dict payload)."""
        return self.secret if isinstance(self.payload, str) else json.dumps(self.secret)[1:-1]


@dataclass(frozen=True)
class Lookalike:
    category: str
    payload: str | dict[str, Any]

    @property
    def text(self) -> str:
        return self.payload if isinstance(self.payload, str) else json.dumps(self.payload)


# --- secrets -------------------------------------------------------------------------------

def _openai() -> str:
    if _RNG.random() < 0.5:
        return f"sk-proj-{_pick(_B64URL, 58)}T3BlbkFJ{_pick(_B64URL, 58)}"
    return f"sk-{_pick(_ALNUM, 20)}T3BlbkFJ{_pick(_ALNUM, 20)}"


_GENERATORS: dict[str, Any] = {
    "openai": _openai,
    "anthropic": lambda: f"sk-ant-api03-{_pick(_B64URL, 93)}AA",
    "aws_access_key": lambda: _RNG.choice(["AKIA", "ASIA"]) + _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    "github": lambda: _RNG.choice([f"ghp_{_pick(_ALNUM, 36)}", f"gho_{_pick(_ALNUM, 36)}",
                                   f"ghs_{_pick(_ALNUM, 36)}", f"github_pat_11{_pick(_UPPER_NUM, 20)}_{_pick(_ALNUM, 59)}"]),
    "gitlab": lambda: f"glpat-{_pick(_B64URL, 20)}",
    "slack_bot": lambda: f"xoxb-{_digits(12)}-{_digits(13)}-{_pick(_ALNUM, 24)}",
    "slack_user": lambda: f"xoxp-{_digits(12)}-{_digits(12)}-{_digits(13)}-{_pick(_HEX, 32)}",
    "slack_app": lambda: f"xapp-1-A{_pick(_UPPER_NUM, 10)}-{_digits(13)}-{_pick(_HEX, 64)}",
    "slack_webhook": lambda: f"https://hooks.slack.com/services/T{_pick(_UPPER_NUM, 8)}/B{_pick(_UPPER_NUM, 10)}/{_pick(_ALNUM, 24)}",
    "stripe_secret": lambda: _RNG.choice(["sk_live_", "rk_live_", "sk_test_"]) + "51" + _pick(_ALNUM, 97),
    "stripe_webhook": lambda: f"whsec_{_pick(_ALNUM, 32)}",
    "google_api_key": lambda: f"AIza{_pick(_B64URL, 35)}",
    "google_oauth": lambda: f"ya29.a0{_pick(_B64URL, 150)}",
    "twilio": lambda: f"SK{_pick(_HEX, 32)}",
    "sendgrid": lambda: f"SG.{_pick(_B64URL, 22)}.{_pick(_B64URL, 43)}",
    "npm": lambda: f"npm_{_pick(_ALNUM, 36)}",
    "pypi": lambda: f"pypi-AgEIcHlwaS5vcmc{_pick(_B64URL, 120)}",
    "huggingface": lambda: f"hf_{_pick(string.ascii_letters, 34)}",
    "azure_storage": lambda: base64.b64encode(_RNG.randbytes(64)).decode(),
    "azure_ad_client_secret": lambda: f"{_pick(_ALNUM, 3)}{_RNG.randint(0, 9)}Q~{_pick(_ALNUM + '_~.-', 34)}",
    "databricks": lambda: f"dapi{_pick(_HEX, 32)}",
    "shopify": lambda: _RNG.choice(["shpat_", "shpss_", "shpca_", "shppa_"]) + _pick(_HEX, 32),
    "digitalocean": lambda: f"dop_v1_{_pick(_HEX, 64)}",
    "vault": lambda: f"hvs.CAESI{_pick(_B64URL, 90)}",
    "sentry": lambda: f"sntryu_{_pick(_HEX, 64)}",
    "age": lambda: "AGE-SECRET-KEY-1" + _pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    "linear": lambda: f"lin_api_{_pick(_ALNUM, 40)}",
    "postman": lambda: f"PMAK-{_pick(_HEX, 24)}-{_pick(_HEX, 34)}",
    "grafana": lambda: f"glsa_{_pick(_ALNUM, 32)}_{_pick(_HEX, 8)}",
    "discord_bot": lambda: (base64.b64encode(_digits(18).encode()).decode().rstrip("=")
                            + f".{_pick(_B64URL, 6)}.{_pick(_B64URL, 38)}"),
    "telegram": lambda: f"{_digits(10)}:AA{_pick(_B64URL, 33)}",
    "jwt": lambda: (base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=") + "."
                    + base64.urlsafe_b64encode(json.dumps({"sub": _digits(8), "exp": 1767225600}).encode())
                    .decode().rstrip("=") + "." + _pick(_B64URL, 43)),
}

# where a token appears: {s} is the secret; the provider's usual variable name is {var}
_TOKEN_CONTEXTS: list[tuple[str, str]] = [
    ("prose", "Here is the key I'm using: {s} -- why does the request still return 401?"),
    ("shell", "curl -sS https://api.example.com/v1/items -H \"X-Api-Key: {s}\" | jq ."),
    ("env", "{var}={s}"),
    ("code", "client = Client(api_key=\"{s}\", timeout=30)"),
]
_VARS = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "aws_access_key": "AWS_ACCESS_KEY_ID",
    "github": "GH_TOKEN", "gitlab": "GITLAB_TOKEN", "slack_bot": "SLACK_BOT_TOKEN", "slack_user": "SLACK_USER_TOKEN",
    "slack_app": "SLACK_APP_TOKEN", "slack_webhook": "SLACK_WEBHOOK_URL", "stripe_secret": "STRIPE_SECRET_KEY",
    "stripe_webhook": "STRIPE_WEBHOOK_SECRET", "google_api_key": "GOOGLE_API_KEY", "google_oauth": "GOOGLE_ACCESS_TOKEN",
    "twilio": "TWILIO_API_KEY", "sendgrid": "SENDGRID_API_KEY", "npm": "NPM_TOKEN", "pypi": "TWINE_PASSWORD",
    "huggingface": "HF_TOKEN", "azure_storage": "AZURE_STORAGE_KEY", "azure_ad_client_secret": "AZURE_CLIENT_SECRET",
    "databricks": "DATABRICKS_TOKEN", "shopify": "SHOPIFY_ACCESS_TOKEN", "digitalocean": "DIGITALOCEAN_TOKEN",
    "discord_bot": "DISCORD_BOT_TOKEN", "vault": "VAULT_TOKEN", "sentry": "SENTRY_AUTH_TOKEN",
    "age": "SOPS_AGE_KEY", "linear": "LINEAR_API_KEY", "postman": "POSTMAN_API_KEY", "grafana": "GRAFANA_TOKEN", "telegram": "TELEGRAM_BOT_TOKEN", "jwt": "SESSION_JWT",
}


def _token_secrets() -> list[Secret]:
    out: list[Secret] = []
    for provider, gen in _GENERATORS.items():
        for context, template in _TOKEN_CONTEXTS:
            s = gen()
            if provider == "azure_storage" and context != "env":
                # an account key alone is just base64: it is a secret only in its connection string
                text = f"DefaultEndpointsProtocol=https;AccountName=acct{_digits(4)};AccountKey={s};EndpointSuffix=core.windows.net"
                if context == "prose":
                    text = f"the storage connection string is {text} (rotated monthly)"
                out.append(Secret(provider, context, text, s))
                continue
            out.append(Secret(provider, context, template.format(s=s, var=_VARS[provider]), s))
    return out


def _password() -> str:
    # what people choose: words, digits and a symbol, or a generated string
    if _RNG.random() < 0.5:
        word = _RNG.choice(["Summer", "Orange", "Falcon", "Winter", "Rocket", "Maple", "Tiger", "Harbor"])
        return f"{word}{_RNG.randint(10, 9999)}{_RNG.choice('!#%*+')}{_pick(_ALNUM, 3)}"
    return _pick(_ALNUM, _RNG.randint(14, 24))


def _context_secrets() -> list[Secret]:
    """Credentials recognised by where they stand: URLs, command lines, env and config files, dicts."""
    cases: list[tuple[str, str, str | dict[str, Any]]] = []

    def add(provider: str, context: str, template: str | dict[str, Any]) -> None:
        cases.append((provider, context, template))

    add("url_credentials", "url", "DATABASE_URL=postgres://billing:{p}@db.internal:5432/billing")
    add("url_credentials", "url", "redis://:{p}@cache.internal:6379/0")
    add("url_credentials", "url", "celery broker is amqp://worker:{p}@rabbit:5672//")
    add("url_credentials", "prose", "I connected with mongodb+srv://admin:{p}@cluster0.ab1cd.mongodb.net/app and it hangs")
    add("url_credentials", "shell", "git clone https://deploy:{p}@git.example.com/team/app.git")
    add("url_credentials", "url", "REDIS_URL=rediss://:{p}@redis-12345.c1.cloud.redislabs.com:12345")
    add("command_env", "shell", "docker run -d -e DB_PASS={p} -e DB_USER=app postgres:16")
    add("command_env", "shell", "PGPASSWORD={p} psql -h db.internal -U app -d billing -c 'select 1'")
    add("command_env", "shell", "MYSQL_PWD={p} mysqldump -u root shop > dump.sql")
    add("command_env", "shell", "docker build --build-arg NPM_AUTH_TOKEN={p} -t web .")
    add("command_env", "shell", "cd app && API_SECRET={p} npm run start")
    add("command_env", "shell", "kubectl create secret generic db --from-literal=DB_PASSWORD={p}")
    add("cli_password_flag", "shell", "mysql -u root -p{p} -h 127.0.0.1 shop")
    add("cli_password_flag", "shell", "mysqldump --user=backup --password={p} --all-databases")
    add("cli_password_flag", "shell", "pg_dump \"--password={p}\" billing")
    add("cli_password_flag", "shell", "redis-cli -h cache --pass {p} ping")
    add("cli_password_flag", "shell", "docker login registry.example.com -u ci --password {p}")
    add("cli_password_flag", "shell", "vault login -method=userpass username=ops password={p}")
    add("curl_user", "shell", "curl -u admin:{p} https://jenkins.internal/api/json")
    add("curl_user", "shell", "curl --user 'deploy:{p}' -X POST https://registry.internal/v2/")
    add("curl_user", "shell", "curl -s -u \"svc-backup:{p}\" https://nexus.internal/service/rest/v1/status")
    add("authorization_header", "shell", "curl -H 'Authorization: Basic {b}' https://api.internal/health")
    add("authorization_header", "json", {"url": "https://api.internal/v2/orders", "headers": {"Authorization": "Basic {b}"}})
    add("authorization_header", "json", {"method": "GET", "headers": {"authorization": "Bearer {t}"}})
    add("authorization_header", "prose", "the request had Authorization: Bearer {t} and still got 403")
    add("dict_key", "json", {"host": "db.internal", "user": "app", "pwd": "{p}"})
    add("dict_key", "json", {"DB_HOST": "db", "DB_PASS": "{p}"})
    add("dict_key", "json", {"username": "svc", "password": "{p}", "port": 5432})
    add("dict_key", "json", {"config": {"smtp": {"user": "mailer", "passwd": "{p}"}}})
    add("dict_key", "json", {"env": {"REDIS_PASSWORD": "{p}", "REDIS_HOST": "cache"}})
    add("dict_key", "json", {"client_id": "web-app", "clientSecret": "{p}"})
    add("env_file", "env", "DB_PASSWORD={p}")
    add("env_file", "env", "export JWT_SECRET='{p}'")
    add("env_file", "env", "  SMTP_PASS=\"{p}\"")
    add("env_file", "env", "ENCRYPTION_KEY={p}")
    add("config_file", "code", "database:\n  host: db\n  password: {p}\n")
    add("config_file", "code", "[client]\nuser = backup\npassword = {p}\n")
    add("config_file", "code", "DATABASES = {{'default': {{'PASSWORD': '{p}', 'HOST': 'db'}}}}")
    add("config_file", "code", "spring.datasource.password={p}")
    add("config_file", "code", "os.environ[\"DB_PASSWORD\"] = \"{p}\"")
    add("config_file", "code", "//registry.npmjs.org/:_authToken={p}")
    add("config_file", "code", "<add key=\"ClearTextPassword\" value=\"{p}\" />")
    add("aws_secret_key", "env", "aws_secret_access_key = {a}")
    add("aws_secret_key", "env", "AWS_SECRET_ACCESS_KEY={a}")

    out: list[Secret] = []
    for provider, context, template in cases:
        secret = _password()
        if "{b}" in json.dumps(template):
            secret = base64.b64encode(f"admin:{_password()}".encode()).decode()
        elif "{t}" in json.dumps(template):
            secret = _pick(_B64URL, 40)
        elif "{a}" in json.dumps(template):
            secret = _pick(_ALNUM + "+/", 40)
        fill = {"p": secret, "b": secret, "t": secret, "a": secret}
        payload: str | dict[str, Any]
        if isinstance(template, str):
            payload = template.format(**fill)
        else:
            payload = json.loads(json.dumps(template).replace("{p}", secret).replace("{b}", secret)
                                 .replace("{t}", secret))
        out.append(Secret(provider, context, payload, secret))
    # PEM private keys, in a message and escaped inside a JSON tool argument
    for i in range(3):
        body = "\n".join(base64.b64encode(_RNG.randbytes(48)).decode() for _ in range(6))
        kind = ["RSA ", "EC ", "OPENSSH "][i]
        pem = f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"
        if i == 2:
            out.append(Secret("private_key", "json", {"file_path": "/home/me/.ssh/id_ed25519", "content": pem}, pem))
        else:
            out.append(Secret("private_key", "prose", f"I generated this key:\n{pem}\nis it valid?", pem))
    return out


SECRETS: list[Secret] = _token_secrets() + _context_secrets()


# --- look-alikes ---------------------------------------------------------------------------

def _lookalikes() -> list[Lookalike]:
    out: list[Lookalike] = []

    def add(category: str, payload: str | dict[str, Any]) -> None:
        out.append(Lookalike(category, payload))

    for _ in range(8):
        sha = _pick(_HEX, 40)
        add("git_sha", _RNG.choice([f"commit {sha}", f"git checkout {sha}", f"fixed in {sha[:12]} ({sha})",
                                    f"Merge: {sha[:7]} {_pick(_HEX, 7)}\n{sha}"]))
    for _ in range(8):
        digest = hashlib.sha256(_RNG.randbytes(16)).hexdigest()
        add("sha256", _RNG.choice([f"sha256:{digest}", f"{digest}  dist/app-1.4.2.tar.gz",
                                   f"image: python@sha256:{digest}", f"--hash=sha256:{digest}"]))
    for _ in range(4):
        b = base64.b64encode(hashlib.sha512(_RNG.randbytes(8)).digest()).decode()
        add("integrity_hash", f'"integrity": "sha512-{b}"')
    for _ in range(8):
        u = str(uuid.UUID(int=_RNG.getrandbits(128), version=4))
        add("uuid", _RNG.choice([f"request id {u}", f'{{"id": "{u}", "status": "ok"}}', f"trace_id={u}",
                                 f"session {u} ended"]))
    for _ in range(6):
        key = _RNG.choice(["pk_live_", "pk_test_"]) + "51" + _pick(_ALNUM, 97)
        add("publishable_key", _RNG.choice([f"const stripe = Stripe('{key}');",
                                            f"STRIPE_PUBLISHABLE_KEY={key}", f"publishable key {key} is in the page"]))
    for word in ["hello world, this is just a test message", "the quick brown fox jumps over the lazy dog",
                 '{"user": "ann", "role": "editor", "theme": "dark"}', "lorem ipsum dolor sit amet consectetur",
                 "version=1.4.2;build=2026-11-25;arch=x86_64", "<svg xmlns='http://www.w3.org/2000/svg'></svg>"]:
        add("base64_non_secret", f"payload: {base64.b64encode(word.encode()).decode()}")
    for v in ["1.26.3", "v2.14.0-rc.1", "3.11.7+debian", "2026.08.1", "0.0.0-dev.20261125.3f2a9c1",
              "neo4j:5.26.4-enterprise", "node@22.11.0", "torch==2.5.1+cu124"]:
        add("version", f"upgrade to {v} first")
    for s in ["He was the bearer of bad news.", "The Bearer scheme is described in RFC 6750, section 2.1.",
              "Pass it as a Bearer token in the header, not in the query string.",
              "Bearer authentication (also called token authentication) uses security tokens.",
              "The bearer-token flow is simpler than the authorization-code flow.",
              "token_type: bearer", "Use the Bearer prefix followed by a space and the token",
              "The bearer\nauthentication_mechanism_overview section is long",
              "Authorization: Bearer <token>", "Authorization: Bearer ${API_TOKEN}"]:
        add("bearer_prose", s)
    for s in ["MainActivityViewModelImpl.onCreate.savedInstanceStateBundleHandler",
              "NotificationServiceProvider.config.defaultRetryPolicyForTransientErrors",
              "OrderRepositoryImplementation.findBy.customerIdentifierAndStatusOrdered",
              "ModuleFederationPluginOpts.shared.reactDomClientSingletonVersion",
              "NSApplicationDelegateAdapter.window.rootViewControllerForSceneSession",
              "OAuth2AuthorizationServerCfg.issuer.jwkSetUriForTokenValidation2"]:
        add("dotted_identifier", s)
    for s in ["def get_secret_key_from_env(name: str) -> str:", "password_reset_token_expiry = timedelta(hours=2)",
              "api_key_header = APIKeyHeader(name='X-API-Key')", "token = get_token(session)",
              "password = os.environ['DB_PASSWORD']", "secret_name: my-app-secret",
              "if not user.check_password(password):", "PASSWORD_MIN_LENGTH=12",
              "MAX_TOKENS=4096", "access_token_lifetime: 3600", "const authToken = await fetchToken();",
              "passwordField.setInputType(InputType.TYPE_TEXT_VARIATION_PASSWORD)",
              "self.api_key = api_key", "kwargs['password'] = password",
              "private_key_path = Path('~/.ssh/id_ed25519').expanduser()"]:
        add("code_identifier", s)
    for s in ["API_TOKEN=<your-token>", "GITHUB_TOKEN=${GITHUB_TOKEN}", "password: ${{ secrets.DB_PASSWORD }}",
              "DB_PASSWORD=changeme", "export OPENAI_API_KEY=sk-...", "password: <your-password>", "TOKEN=",
              "docker run -e DB_PASS=$DB_PASS postgres", "PGPASSWORD=\"$PGPASS\" psql -U app",
              "mysql -u root -p shop", "curl -u admin https://jenkins.internal/api/json",
              "docker login --password-stdin < token.txt", "redis://localhost:6379/0",
              "postgres://user@db.internal/app", "the ghp_ prefix is for personal tokens, e.g. ghp_xxx",
              "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password"]:
        add("placeholder", s)
    for payload in [{"pwd": "/home/ann/projects/app"}, {"command": "pwd"}, {"password_hint": "name of your first pet"},
                    {"token_count": "12"}, {"passphrase_required": "true"}, {"Authorization": "Bearer <token>"},
                    {"auth": "oauth2", "scopes": ["repo", "read:org"]}, {"DB_PASS": "${DB_PASS}"},
                    {"compass": "north-north-east"}, {"bypass_cache": "yes"}]:
        add("dict_lookalike", payload)
    for s in ["xoxo, see you tomorrow", "the AIza prefix marks Google keys", "AKIA keys are long-lived",
              "SKU-2026-000123", "SK hynix reported record revenue", "dapi is Databricks' prefix",
              "shpat_ tokens belong to Shopify custom apps", "ya29 tokens expire after an hour",
              "mail me at jane.doe@example.com or git@github.com:org/repo.git",
              "http://localhost:8080/api?page=2&sort=asc", "the xapp- prefix is Slack's app-level token",
              "sk-learn is not a thing, scikit-learn is", "hf_hub_download(repo_id='org/model')",
              "npm_config_cache=/tmp/npm", "pip install pypi-simple"]:
        add("prefix_mention", s)
    return out


LOOKALIKES: list[Lookalike] = _lookalikes()


def typical_turn(seed: int = 7) -> str:
    """A few KB of mixed prose, code and a command output, the size of a typical agent turn."""
    rng = random.Random(seed)
    prose = ("The failing test sets up a temporary database, inserts three orders and expects the invoice total "
             "to be rounded half-up; the refactor switched to banker's rounding, so 2.675 became 2.67. ")
    code = ("def total(order: Order) -> Decimal:\n    subtotal = sum(line.price * line.qty for line in order.lines)\n"
            "    return subtotal.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)\n")
    log = ("2026-11-25T11:02:13Z INFO  worker.py:88 processed batch id=3f2a9c1d rows=128 elapsed=0.41s\n"
           "2026-11-25T11:02:14Z WARN  http.py:210 retrying GET https://api.example.com/v1/items?page=2 (503)\n")
    auth = ("The client reads its token from the keyring and the password prompt is disabled in CI; see "
            "settings.api_key_env and `deploy --dry-run --verbose`.\n")
    parts = [prose, code, log, auth, "$ git log --oneline -3\n3f2a9c1 fix rounding\n8bbb156 README\n3b159ee move\n"]
    out: list[str] = []
    while sum(len(p) for p in out) < 4000:
        out.append(rng.choice(parts))
    return "".join(out)
