"""Codex CLI rollout importer (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``).

Format, from the openai/codex sources (``codex-rs/protocol``: ``RolloutLine``, ``ResponseItem``,
``EventMsg``) and public descriptions of real rollouts:

* each line is ``{"timestamp": ..., "type": ..., "payload": {...}}`` with ``type`` one of
  ``session_meta`` (``id``, ``cwd``, ``timestamp``, ``cli_version``, ``instructions``),
  ``turn_context`` (``cwd``, ``model``, ``turn_id`` ...), ``response_item``, ``event_msg`` and
  ``compacted`` (``message``: the summary). Older rollouts (2025-05..07) have no wrapper: the
  first line is the session meta (``id``, ``timestamp``, ``instructions``) and the next lines are
  bare response items (plus ``{"record_type": "state"}`` lines); both are accepted.
* ``response_item`` payloads: ``message`` (``role`` user/assistant/developer/system,
  ``content``: ``input_text``/``output_text``/``input_image`` parts), ``function_call``
  (``name``, ``arguments`` as a JSON string, ``call_id``), ``function_call_output``
  (``call_id``, ``output``), ``custom_tool_call``/``custom_tool_call_output`` (apply_patch),
  ``local_shell_call``, ``web_search_call``, ``reasoning`` (skipped).
* a tool output is a plain string, a JSON string ``{"output": ..., "metadata": {"exit_code",
  "duration_seconds"}}``, or text starting with ``Exit code: N`` / ``Process exited with code N``
  and ``Wall time: X seconds``; success and duration come from there, else from the matching
  ``event_msg``/``exec_command_end``, else from the record timestamps.
* user messages Codex injects itself (``<environment_context>``, ``<user_instructions>``,
  ``# AGENTS.md instructions``, ``<permissions instructions>`` ...) and ``developer``/``system``
  messages are not prompts. ``event_msg`` ``user_message``/``agent_message`` duplicate the
  response items; they are used only when a file has no response-item messages of that role.
  ``event_msg`` ``task_complete`` ends a turn, ``turn_aborted`` marks it interrupted.

Rollouts carry no per-message id, so a turn's source id is derived from the session id, the
prompt's timestamp and its text (stable across re-imports; identical duplicated lines are
dropped before that). Compaction records become marked turns (see ``COMPACTION_MARKER``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .codex_turns import Assembler, Record
from .transcript import (
    Diagnostics,
    ImportedSession,
    ReadCursor,
    ReadOptions,
    Source,
    TranscriptFormat,
    iter_lines,
    load_json_line,
    source_path,
)
from .turns import (
    as_str,
    finalize,
    parse_ts,
    select_turns,
    short_hash,
)

__all__ = ["AGENT", "FORMAT", "parse_codex"]

AGENT = "codex"

_RESPONSE_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "reasoning",
    }
)


def parse_codex(
    source: Source,
    *,
    include_incomplete: bool = True,
    skip_nomem: bool = True,
    redact: bool = True,
) -> ImportedSession:
    """Import a whole Codex rollout (see ``parse_claude_code`` for the options)."""
    return _parse(source, ReadOptions(final=include_incomplete, skip_nomem=skip_nomem, redact=redact))


def _normalize(obj: dict[str, Any]) -> tuple[str, dict[str, Any], Any] | None:
    """(kind, payload, timestamp) of a rollout line in any known layout."""
    payload = obj.get("payload")
    kind = obj.get("type")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload, obj.get("timestamp", payload.get("timestamp"))
    if "record_type" in obj:
        return "state", obj, None
    if isinstance(kind, str) and kind in _RESPONSE_TYPES:
        return "response_item", obj, obj.get("timestamp")
    if kind is None and isinstance(obj.get("id"), str) and ("instructions" in obj or "timestamp" in obj):
        return "session_meta", obj, obj.get("timestamp")
    return None


def _head_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The session meta of a rollout's first lines (used by incremental reads)."""
    diag = Diagnostics()
    for line in iter_lines(path):
        if line.lineno > 5:
            break
        obj = load_json_line(line, diag, incremental=True)
        norm = _normalize(obj) if obj is not None else None
        if norm is not None and norm[0] == "session_meta":
            return norm[1]
    return {}


def _parse(source: Source, opts: ReadOptions) -> ImportedSession:
    """One read of a rollout: the whole file, or (``opts.incremental``) what follows the cursor. A
    turn is finished by ``task_complete``/``turn_aborted``, a later prompt, ``opts.final`` or the
    Stop hook's text. ``opts.session_id`` names the session when the part read has no
    ``session_meta`` line; without it the id is read from the file's first lines."""
    start, incremental = opts.start, opts.incremental
    diag = Diagnostics()
    records: list[Record] = []
    seen: set[str] = set()
    meta: dict[str, Any] = {}
    cwd: str | None = None
    end_offset = start
    unknown: dict[str, int] = {}

    for line in iter_lines(source, start):
        if incremental and not line.terminated:
            break
        end_offset = line.end
        obj = load_json_line(line, diag, incremental=incremental)
        if obj is None:
            continue
        diag.count("records")
        key = short_hash(line.text.strip())
        if key in seen:
            diag.count("duplicates")
            continue
        seen.add(key)
        norm = _normalize(obj)
        if norm is None:
            unknown[str(obj.get("type"))] = unknown.get(str(obj.get("type")), 0) + 1
            continue
        kind, payload, raw_ts = norm
        if kind == "session_meta":
            if not meta:
                meta = payload
            elif payload.get("id") not in (None, meta.get("id")):
                diag.warn("session_meta", "several session_meta records; the first one names the session")
            continue
        if kind == "turn_context":
            cwd = cwd or as_str(payload.get("cwd"))
            continue
        if kind == "state":
            diag.count("skipped:state")
            continue
        if kind not in ("response_item", "event_msg", "compacted"):
            unknown[kind] = unknown.get(kind, 0) + 1
            continue
        records.append(Record(line.offset, line.lineno, parse_ts(raw_ts), kind, payload))

    diag.unknown_types(unknown)

    path = source_path(source)
    if not meta and incremental and path is not None and start > 0:
        meta = _head_meta(path)
    session_id = as_str(meta.get("id")) or opts.session_id or _id_from_name(path)
    cwd = as_str(meta.get("cwd")) or cwd

    builders = Assembler(diag, session_id, late=incremental and start > 0).run(records)
    emitted, held = select_turns(
        builders, final=opts.final, after_source_id=opts.after_source_id, diag=diag, tail_text=opts.tail_text
    )
    turns = finalize(emitted, diag, skip_nomem=opts.skip_nomem, redact=opts.redact)
    started = parse_ts(meta.get("timestamp")) or min((r.ts for r in records if r.ts), default=None)
    return ImportedSession(
        agent=AGENT,
        session_id=session_id,
        cwd=cwd,
        started_at=started,
        title=None,
        source_path=path,
        turns=turns,
        warnings=diag.warnings(),
        stats=diag.stats,
        cursor=ReadCursor(
            offset=held.offset if held is not None else end_offset,
            last_source_id=emitted[-1].source_id if emitted else opts.after_source_id,
        ),
    )


_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE)


def _id_from_name(path: str | None) -> str:
    if path:
        stem = Path(path).stem
        m = _UUID_TAIL.search(stem)
        return m.group(1) if m else stem
    return "codex-" + short_hash("no-session-meta")


def _read(source: Source, opts: ReadOptions) -> list[ImportedSession]:
    return [_parse(source, opts)]


_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


FORMAT = TranscriptFormat(
    name=AGENT,
    label="Codex",
    read=_read,
    resume="offset",
    aliases=("codex-cli",),
    patterns=("rollout-*.jsonl", "*.jsonl"),
    record_rules=(
        (0, lambda obj: obj.get("type") in _CODEX_TYPES and "payload" in obj),
        (3, lambda obj: "record_type" in obj or (obj.get("type") is None and "instructions" in obj)),
    ),
    name_hint=lambda name: name.startswith("rollout-"),
)
"""Codex rollouts (``rollout-<ts>-<uuid>.jsonl``, appended to: read on at the cursor's offset)."""
