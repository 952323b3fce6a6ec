"""Settings, read from the environment (prefix ``GRAPHMEM_``) only when asked.

Library constructors take explicit arguments; only the CLI and ``GraphMemory.from_settings()``
call :meth:`Settings.load`. The standard ``NEO4J_URI`` / ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD``
/ ``NEO4J_DATABASE`` variables are accepted as well as the ``GRAPHMEM_NEO4J_*`` ones (which win).
When no URI is given, graphmem uses its managed local server under ``$GRAPHMEM_HOME``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import InvalidSettings

__all__ = [
    "DEFAULT_HOOK_REPLAY_SECONDS",
    "DEFAULT_NEO4J_VERSION",
    "LTS_NEO4J_VERSION",
    "Settings",
    "default_home",
    "hook_environment",
    "is_settings_error",
    "settings_problems",
]

DEFAULT_NEO4J_VERSION = "2026.08.1"
"""Newest Neo4j Community release on Maven Central that starts on the Temurin 25 JDK here."""
LTS_NEO4J_VERSION = "5.26.30"
"""The 5.26 LTS line (Java 17 or 21), the most deployed server; CI runs the tests on both."""
DEFAULT_HOOK_REPLAY_SECONDS = 2.0
"""Seconds a Stop hook spends replaying the spool before it spools its own turns behind the rest."""


def default_home() -> Path:
    return Path("~/.local/share/graphmem").expanduser()


_BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class Settings(BaseSettings):
    """Every knob graphmem reads from the environment."""

    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore", populate_by_name=True)

    home: Path = Field(default_factory=default_home)

    # --- Neo4j connection (explicit) ---
    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("GRAPHMEM_NEO4J_URI", "NEO4J_URI"))
    neo4j_user: str = Field(
        default="neo4j", validation_alias=AliasChoices("GRAPHMEM_NEO4J_USER", "NEO4J_USERNAME", "NEO4J_USER")
    )
    neo4j_password: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("GRAPHMEM_NEO4J_PASSWORD", "NEO4J_PASSWORD")
    )
    neo4j_database: str = Field(
        default="neo4j", validation_alias=AliasChoices("GRAPHMEM_NEO4J_DATABASE", "NEO4J_DATABASE")
    )
    connect_timeout: float = 5.0
    """Seconds to wait for Neo4j before raising DatabaseUnavailable."""

    # --- hooks ---
    hook_replay_seconds: float = DEFAULT_HOOK_REPLAY_SECONDS
    """GRAPHMEM_HOOK_REPLAY_SECONDS: how long a Stop hook replays a spool backlog before it spools its
    own turns behind what is left and returns (0 = no limit). ``graphmem spool replay``, ``graphmem
    db up`` and the daemon's timer replay everything."""

    # --- managed local server ---
    neo4j_version: str = DEFAULT_NEO4J_VERSION
    java_home: Path | None = None
    heap: str = "auto"
    """GRAPHMEM_HEAP: the managed server's maximum Java heap (``1g``, ``512m``), or ``auto``: an eighth
    of the machine's memory, 512 MiB to 2 GiB (the heap starts at 128 MiB and grows)."""
    pagecache: str = "auto"
    """GRAPHMEM_PAGECACHE: the managed server's page cache, or ``auto``: twice the store plus 64 MiB
    at each start, 128 MiB to 2 GiB (and at most a quarter of the machine's memory)."""
    bolt_port: int = 7687
    http_port: int = 7474
    start_timeout: float = 180.0

    # --- embeddings ---
    embedder: Literal["auto", "local", "e5", "openai", "sentence-transformers", "none"] = "auto"
    embedding_model: str | None = None
    embedding_dimensions: int | None = None

    # --- OpenAI and compatible servers ---
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("GRAPHMEM_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("GRAPHMEM_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )

    # --- summaries ---
    summarizer: Literal["extractive", "openai"] = "extractive"
    llm_model: str = "gpt-4o-mini"
    rollup_threshold_chars: int = 5000
    rollup_growth: float = 4.0

    # --- chat agents (graphmem/chat; ChatConfig) ---
    chat_root: str = "/graphmem-chat"
    """The made-up directory under which chat conversations are filed."""
    chat_session_gap_minutes: float = 15.0
    """A conversation silent for longer than this continues in a new session."""
    chat_timezone: str = "UTC"
    chat_locale: str = "en"

    # --- the chat agents' periodic digest (graphmem/chat/digest.py) ---
    digest_hours: str = "2,6,10,14,18,22"
    """The hours of the day at which a digest of the live messages is due (comma-separated)."""
    digest_timezone: str = "Europe/Paris"
    digest_scope: str = "global"
    """The fact scope the digested facts are stored in."""

    # --- notes from a Markdown vault (graphmem/notes; NotesConfig) ---
    notes_vault: str | None = None
    """The vault folder (Obsidian's layout) whose notes are a context source; None: no notes."""
    notes_tag: str = "memory"
    """Notes carrying this tag (front matter or ``#tag``, nested tags too) go into memory."""
    notes_fixed: str = ""
    """Comma-separated vault paths of the fixed notes every context carries."""
    notes_api_url: str | None = None
    """Read the vault through Obsidian's Local REST API plugin (e.g. ``https://127.0.0.1:27124``)."""
    notes_api_key: SecretStr | None = None
    """The plugin's API key (sent as a bearer token)."""
    notes_api_ca: str | None = None
    """The plugin's certificate (PEM), trusted for this client only (never: verification off)."""

    # --- summarizer worker (graphmem/worker.py; see WorkerConfig for the meaning of each) ---
    summary_batch_chars: int | None = None
    """Level-1 batching: consecutive turns are summarized together while their raw characters stay
    under this; 0 = one summary per turn; None (default) = 0 with the extractive summarizer, 1500
    with an LLM (caps LLM calls in sessions of many short turns)."""
    summary_batch_max_turns: int = 8
    summary_batch_wait_seconds: float = 60.0
    rollup_min_children: int = 2
    rollup_max_children: int = 64
    worker_lease_seconds: float = 120.0
    worker_max_attempts: int = 5
    worker_max_lost_leases: int = 25
    worker_retry_base_seconds: float = 5.0
    worker_retry_max_seconds: float = 900.0
    worker_claim_batch: int = 4
    worker_poll_seconds: float = 1.0
    worker_nice: int = 10
    worker_duty_cycle: float = 1.0
    worker_yield_seconds: float = 0.25
    """The worker takes no new job while a foreground call on this machine ran less than this long ago
    (GRAPHMEM_WORKER_YIELD_SECONDS; 0 = never yield). See :mod:`graphmem.activity`."""

    @field_validator("neo4j_uri")
    @classmethod
    def _bolt_uri(cls, value: str | None) -> str | None:
        if not value:
            return value  # unset or empty: the managed server
        scheme, sep, _ = value.partition("://")
        if not sep:
            raise ValueError("must be a Bolt URI: bolt://host:7687 or neo4j://host:7687")
        if scheme.lower() in ("http", "https"):
            raise ValueError(f"must be a Bolt URI (bolt:// or neo4j://), not {scheme.lower()}://: that is the Browser's "
                             "address; the Bolt one is usually bolt://host:7687")
        if scheme.lower() not in _BOLT_SCHEMES:
            raise ValueError(f"must be a Bolt URI: bolt:// or neo4j:// (or their +s / +ssc forms), not {scheme}://")
        return value

    @field_validator("hook_replay_seconds")
    @classmethod
    def _non_negative_seconds(cls, value: float) -> float:
        if not value >= 0:  # also rejects NaN
            raise ValueError("must be a number of seconds >= 0 (0 = no limit)")
        return value

    @classmethod
    def load(cls) -> Settings:
        """Read the environment now (the only place graphmem does).

        Raises :class:`~graphmem.errors.InvalidSettings` (one line per bad value) on a bad setting."""
        try:
            return cls()
        except ValidationError as e:
            if not is_settings_error(e):
                raise
            raise InvalidSettings(settings_problems(e)) from e

    @property
    def managed(self) -> bool:
        """True when no explicit URI is configured, i.e. the managed local server is used."""
        return not self.neo4j_uri


_SECRET_WORDS = ("password", "secret", "key", "token")
_MAX_SHOWN = 80


def is_settings_error(error: BaseException) -> bool:
    """Whether ``error`` is the :class:`ValidationError` of loading :class:`Settings` (not of another model)."""
    return isinstance(error, ValidationError) and error.title == Settings.__name__


def _env_names(field_name: str) -> list[str]:
    """The environment variables that can set a field, in the order pydantic-settings reads them."""
    field = Settings.model_fields[field_name]
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [c for c in alias.choices if isinstance(c, str)]
    if isinstance(alias, str):
        return [alias]
    return [f"GRAPHMEM_{field_name.upper()}"]


def _field_of(key: str) -> str | None:
    if key in Settings.model_fields:
        return key
    for name in Settings.model_fields:  # a loc may name an alias (NEO4J_URI) instead of the field
        if key.lower() in (n.lower() for n in _env_names(name)):
            return name
    return None


def _is_secret(field_name: str) -> bool:
    annotation = Settings.model_fields[field_name].annotation
    if annotation is SecretStr or SecretStr in get_args(annotation):
        return True
    return any(word in field_name.lower() for word in _SECRET_WORDS)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        more = f"... ({len(value)} chars)" if len(value) > _MAX_SHOWN else ""
        return repr(value[:_MAX_SHOWN]) + more
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def settings_problems(error: ValidationError, environ: Mapping[str, str] | None = None) -> list[str]:
    """One ``NAME='value': message`` per problem of a :class:`Settings` :class:`ValidationError`.

    NAME is the environment variable the value came from, as spelled there (matched without case, as
    pydantic-settings does, and by value), else the field name (a value passed as an argument). The value
    is shown truncated to 80 characters, and not at all for a password, key, secret or token, nor for
    errors that carry no single value (a missing field, a check across fields). Each item is one line.
    """
    env = os.environ if environ is None else environ
    problems: list[str] = []
    for err in error.errors():
        msg = " ".join(str(err.get("msg", "")).split())
        msg = msg.removeprefix("Value error, ")
        loc = err.get("loc") or ()
        field = _field_of(str(loc[0])) if loc else None
        if field is None:  # a check across fields: no single variable or value to name
            text = f"{'.'.join(map(str, loc)) or 'settings'}: {msg}"
        else:
            value = err.get("input")
            names = {n.lower() for n in _env_names(field)}
            label = next((k for k, v in env.items() if k.lower() in names and v == value), field)
            if err.get("type") == "missing":  # its input is every value given, not this one
                text = f"{label}: {msg}"
            elif _is_secret(field):
                text = f"{label} (value not shown): {msg}"
            else:
                text = f"{label}={_shown(value)}: {msg}"
        if text not in problems:
            problems.append(text)
    return problems


HOOK_KNOBS = (
    "GRAPHMEM_WORKTREES", "GRAPHMEM_LOCALE", "GRAPHMEM_HOOK_BRIEF", "GRAPHMEM_HOOK_VECTOR_DEDUP",
    "GRAPHMEM_HOOK_BUDGET", "GRAPHMEM_HOOK_STOP_BUDGET", "GRAPHMEM_HOOK_DAEMON", "GRAPHMEM_DAEMON_IDLE",
    "GRAPHMEM_DAEMON_WORKER",
)
"""Variables read by the hook path itself (not :class:`Settings` fields) that a hook carries."""


def hook_environment(environ: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The settings a hook command must carry to behave like the installing shell: every variable
    of ``environ`` (default: this process's) that sets a :class:`Settings` field or a hook knob
    (:data:`HOOK_KNOBS`), in a stable order, ``GRAPHMEM_HOME`` made absolute (hooks run in other
    directories). Returns (carried, left out): a password, key, secret or token is never carried
    (it would be written into the CLI's settings file in clear); its name is in the second list."""
    env = os.environ if environ is None else environ
    upper = {k.upper(): k for k in env}
    carried: dict[str, str] = {}
    left_out: list[str] = []
    for name in Settings.model_fields:
        for var in _env_names(name):
            key = upper.get(var.upper())
            if key is None or not env[key]:
                continue
            if _is_secret(name):
                left_out.append(key)
            elif key not in carried:
                carried[key] = env[key]
            break  # the first one set is the one pydantic-settings reads
    for var in HOOK_KNOBS:
        if env.get(var):
            carried[var] = env[var]
    if "GRAPHMEM_HOME" in carried:
        carried["GRAPHMEM_HOME"] = os.path.abspath(os.path.expanduser(carried["GRAPHMEM_HOME"]))
    return dict(sorted(carried.items())), left_out
