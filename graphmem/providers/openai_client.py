"""Construction of the official ``openai`` client for OpenAI and OpenAI-compatible servers.

Nothing is read from the environment here: the key and base URL come from the caller (the
:class:`~graphmem.config.Settings` do the reading). The client's own retries are disabled; see
:mod:`graphmem.providers.retry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from pydantic import SecretStr

from ..errors import ConfigError

if TYPE_CHECKING:
    import openai

__all__ = ["NO_KEY_PLACEHOLDER", "OPENAI_BASE_URL", "is_openai_endpoint", "make_openai_client", "resolve_api_key"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
NO_KEY_PLACEHOLDER = "graphmem-no-key"
"""Sent as the key to a compatible server configured without one (Ollama, vLLM, LM Studio ignore it)."""


def is_openai_endpoint(base_url: str | None) -> bool:
    """True when ``base_url`` is OpenAI's own API (or unset, which means it)."""
    if not base_url:
        return True
    host = (urlparse(base_url).hostname or "").lower()
    return host == "openai.com" or host.endswith(".openai.com")


def resolve_api_key(api_key: str | SecretStr | None, base_url: str | None, *, what: str) -> str:
    """The key to send; :class:`ConfigError` when OpenAI itself is the target and no key is set.

    A compatible server given by ``base_url`` may run without a key: a placeholder is sent then.
    """
    key = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
    if key is not None:
        key = key.strip()
    if key:
        return key
    if is_openai_endpoint(base_url):
        raise ConfigError(
            f"{what} needs an OpenAI API key: set GRAPHMEM_OPENAI_API_KEY (or OPENAI_API_KEY), or set "
            "GRAPHMEM_OPENAI_BASE_URL to an OpenAI-compatible server that needs none"
        )
    return NO_KEY_PLACEHOLDER


def make_openai_client(
    *,
    api_key: str | SecretStr | None,
    base_url: str | None,
    timeout: float,
    what: str,
) -> openai.OpenAI:
    """An ``openai.OpenAI`` client with ``max_retries=0`` and an explicit base URL and timeout."""
    key = resolve_api_key(api_key, base_url, what=what)
    if timeout <= 0:
        raise ConfigError(f"{what}: timeout must be positive, got {timeout}")
    try:
        import openai
    except ImportError as e:  # pragma: no cover - openai is a core dependency
        raise ConfigError("the 'openai' package is required: pip install openai") from e
    try:
        return openai.OpenAI(
            api_key=key,
            base_url=(base_url or OPENAI_BASE_URL).rstrip("/"),
            timeout=timeout,
            max_retries=0,
        )
    except openai.OpenAIError as e:
        raise ConfigError(f"{what}: cannot create the OpenAI client: {e}") from e
