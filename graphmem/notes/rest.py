"""Reading the vault through Obsidian's Local REST API plugin instead of the folder.

The plugin serves HTTPS (port 27124 by default) with a certificate it generated itself. That
certificate is trusted explicitly: ``ca_file`` is the plugin's certificate (Obsidian → Settings →
Local REST API, or ``https://127.0.0.1:27124/obsidian-local-rest-api.crt``), added to the trust of
this client only; verification is never turned off. Requests carry the plugin's API key as a bearer
token. ``GET /vault/<folder>/`` lists a folder (sub-folders end with ``/``), and ``GET /vault/<path>``
with ``Accept: application/vnd.olrapi.note+json`` gives a note's content and modification time.
"""

from __future__ import annotations

import json
import ssl
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from .vault import VaultNote, is_memory_note, parse_note

__all__ = ["NOTE_JSON", "RestVault", "VaultUnavailable", "scan_rest"]

NOTE_JSON = "application/vnd.olrapi.note+json"


class VaultUnavailable(OSError):
    """The vault cannot be read (the API is down, refuses the key, or its certificate is not trusted)."""


@dataclass(frozen=True)
class RestVault:
    """A vault served by the Local REST API plugin."""

    url: str
    api_key: SecretStr
    ca_file: Path | None = None
    """The plugin's certificate (PEM), trusted for this client only; None: the system's trust store."""
    timeout: float = 10.0

    def _context(self) -> ssl.SSLContext:
        if self.ca_file is not None and not self.ca_file.is_file():
            raise VaultUnavailable(f"notes API certificate not found: {self.ca_file}")
        return ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file is not None else None)

    def _get(self, path: str, accept: str, context: ssl.SSLContext, timeout: float | None = None) -> Any:
        import urllib.error  # on first use: the HTTP client stays out of every command's start-up
        import urllib.request

        request = urllib.request.Request(self.url.rstrip("/") + path, headers={
            "Authorization": f"Bearer {self.api_key.get_secret_value()}", "Accept": accept})
        try:
            with urllib.request.urlopen(request, context=context, timeout=timeout or self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raise VaultUnavailable(f"notes API {self.url}: HTTP {e.code} for {path}"
                                   + (" (check GRAPHMEM_NOTES_API_KEY)" if e.code in (401, 403) else "")) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            raise VaultUnavailable(f"notes API {self.url} unreachable: {reason}") from None

    def check(self, timeout: float = 1.0) -> None:
        """Raise :class:`VaultUnavailable` unless the API answers (its status endpoint)."""
        self._get("/", "application/json", self._context(), timeout)


def _quote(path: str) -> str:
    return "/".join(urllib.parse.quote(part) for part in path.split("/"))


def scan_rest(vault: RestVault, *, tag: str, fixed: Sequence[str] = ()) -> list[VaultNote]:
    """The notes of the vault that go into memory (as :func:`~graphmem.notes.vault.scan_vault`),
    read through the API; :class:`VaultUnavailable` when it cannot be read."""
    context = vault._context()
    wanted = {p.strip().replace("\\", "/").lstrip("/") for p in fixed if p.strip()}
    wanted |= {w + ".md" for w in wanted if not w.lower().endswith(".md")}
    folders, files = [""], []
    while folders:
        folder = folders.pop(0)
        listing = vault._get("/vault/" + _quote(folder), "application/json", context)
        for name in sorted(str(f) for f in listing.get("files", [])):
            leaf = name.rstrip("/").rsplit("/", 1)[-1]
            if leaf.startswith("."):
                continue
            path = name if name.startswith(folder) else folder + name
            if name.endswith("/"):
                folders.append(path)
            elif path.lower().endswith(".md"):
                files.append(path)
    out: list[VaultNote] = []
    for path in files:
        note = vault._get("/vault/" + _quote(path), NOTE_JSON, context)
        mtime = float((note.get("stat") or {}).get("mtime") or 0) / 1000.0
        parsed = parse_note(path, str(note.get("content") or ""), fixed=path in wanted, mtime=mtime)
        if parsed.fixed or is_memory_note(parsed, tag):
            out.append(parsed)
    return out
