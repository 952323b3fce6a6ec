"""The service's bearer token: generated once, stored with mode 0600 in ``$GRAPHMEM_HOME``.

Bound to a loopback address the service needs no token (only this machine reaches it); bound
anywhere else, every request must carry ``Authorization: Bearer <token>``, compared in constant
time (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from pathlib import Path

__all__ = ["TOKEN_FILE", "is_loopback", "load_or_create_token", "token_matches"]

TOKEN_FILE = "service-token"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def load_or_create_token(home: Path) -> str:
    """The token stored under ``home`` (created with mode 0600 on first use)."""
    path = home / TOKEN_FILE
    if path.is_file():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
            return token
    home.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return token


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (constant-time comparison)."""
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode("utf-8"), token.encode("utf-8"))
