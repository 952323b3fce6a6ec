"""The managed server's initial password, set without putting it on any command line.

``neo4j-admin dbms set-initial-password <password>`` would show the password to every local user
in ``/proc/<pid>/cmdline``. It only writes ``data/dbms/auth.ini``: one line
``<user>:SHA-256,<hash>,<salt>,1024:`` that the system database reads on its first start (and
ignores once it exists). graphmem writes the same line itself (0600): the hash is SHA-256 of the
salt then the password, hashed again 1023 times, both hex-encoded, a 32-byte random salt.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

__all__ = ["HASH_ITERATIONS", "auth_line", "write_initial_password"]

HASH_ITERATIONS = 1024


def auth_line(password: str, *, user: str = "neo4j", salt: bytes | None = None) -> str:
    """The ``auth.ini`` line that sets ``user``'s password (no newline)."""
    salt = secrets.token_bytes(32) if salt is None else salt
    digest = hashlib.sha256(salt + password.encode("utf-8")).digest()
    for _ in range(HASH_ITERATIONS - 1):
        digest = hashlib.sha256(digest).digest()
    return f"{user}:SHA-256,{digest.hex()},{salt.hex()},{HASH_ITERATIONS}:"


def write_initial_password(data_dir: Path, password: str, *, user: str = "neo4j") -> Path:
    """Write ``data_dir/dbms/auth.ini`` (0600, replaced atomically) for a store not started yet."""
    folder = data_dir / "dbms"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "auth.ini"
    tmp = folder / f".auth.ini.{os.getpid()}.partial"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(auth_line(password, user=user) + "\n")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
