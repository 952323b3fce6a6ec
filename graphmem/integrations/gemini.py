"""Gemini CLI chat importer (``~/.gemini/tmp/<project>/chats/session-*.json[l]`` and checkpoints).

Formats, from google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts``
and ``chatRecordingTypes.ts`` (``ConversationRecord``, ``MessageRecord``, ``ToolCallRecord``):

* legacy ``session-<time>-<id>.json``: one object ``{sessionId, projectHash, startTime,
  lastUpdated, messages: [...], summary?, directories?, kind?}``.
* current ``session-<time>-<id>.jsonl``: a first metadata line (``sessionId``, ``projectHash``,
  ``startTime`` ...), then message records (a record whose ``id`` was seen before replaces it in
  place), ``{"$set": {...}}`` metadata updates (a ``$set`` of ``messages`` replaces the whole
  list) and ``{"$rewindTo": id}`` (drops that message and everything after it).
* a message: ``id``, ``timestamp``, ``type`` (``user``, ``gemini``, ``info``, ``error``,
  ``warning``), ``content`` (a string or Gemini ``Part``s), ``displayContent`` (what the user
  typed; preferred for prompts); ``gemini`` messages add ``toolCalls``: ``id``, ``name``,
  ``args``, ``result`` (``Part``s holding ``functionResponse.response.output``/``error``),
  ``status`` (``success``/``error``/``cancelled``/...), ``timestamp``, ``resultDisplay``.
* checkpoints (``/chat save``, ``checkpoint-<tag>.json``): a list of API ``Content``
  (``{role: user|model, parts: [...]}``) with ``text``, ``functionCall`` and
  ``functionResponse`` parts.

Turns start at ``user`` messages (source id = the message ``id``); ``info``/``error``/``warning``
messages are skipped; a slash command is kept only if the model answered it; a user message
starting with ``<state_snapshot>`` (history compression) becomes a compaction turn. The file
has no working directory: ``cwd`` comes from the caller (hook input) or from the
``.project_root`` file Gemini keeps next to the ``chats`` folder. Tool calls carry no start
time, so ``duration_ms`` stays None. A cancelled or unfinished tool call gets ``success=None``.
A truncated legacy ``.json`` file is salvaged message by message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .transcript import (
    COMPACTION_MARKER,
    Diagnostics,
    ImportedSession,
    ReadCursor,
    ReadOptions,
    Source,
    TranscriptFormat,
    decode,
    file_size,
    iter_lines,
    load_json_line,
    read_bytes,
    source_path,
)
from .turns import (
    PendingTool,
    TurnBuilder,
    as_dict,
    as_str,
    finalize,
    json_text,
    parse_ts,
    select_turns,
    short_hash,
    strip_injected_context,
    text_of_blocks,
)

__all__ = ["AGENT", "FORMAT", "parse_gemini"]

AGENT = "gemini"

_COMMAND_RE = re.compile(r"^/[A-Za-z][\w:-]*(?:\s|$)")


def parse_gemini(
    source: Source,
    *,
    cwd: str | None = None,
    include_incomplete: bool = True,
    skip_nomem: bool = True,
    redact: bool = True,
) -> ImportedSession:
    """Import a Gemini CLI session file (``.json``/``.jsonl``) or checkpoint."""
    return _parse(source, ReadOptions(cwd=cwd, final=include_incomplete, skip_nomem=skip_nomem, redact=redact))


def _parse(source: Source, opts: ReadOptions) -> ImportedSession:
    """One read of a session file, always whole (Gemini rewrites and rewinds its files): turns
    after ``opts.after_source_id``. Gemini writes its file before running hooks, so a last turn
    that ends on model text with every tool call answered counts as finished; the Stop hook's
    text (AfterAgent's ``prompt_response``) also finishes it."""
    after_source_id = opts.after_source_id
    diag = Diagnostics()
    path = source_path(source)
    raw = read_bytes(source)
    text = decode(raw).lstrip("\ufeff")
    meta: dict[str, Any] = {}
    messages: list[dict[str, Any]] = []
    checkpoint: list[dict[str, Any]] | None = None

    whole: Any = None
    try:
        whole = json.loads(text) if text.strip() else None
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
        meta = whole
        messages = [m for m in whole["messages"] if isinstance(m, dict)]
        diag.count("records", len(messages))
    elif isinstance(whole, list):
        checkpoint = [c for c in whole if isinstance(c, dict)]
    elif isinstance(whole, dict) and isinstance(whole.get("history"), list):
        checkpoint = [c for c in whole["history"] if isinstance(c, dict)]
        meta = whole
    elif _looks_like_jsonl(text):
        meta, messages = _read_jsonl(raw, diag)
    elif text.strip():
        meta, messages = _salvage(text, diag)

    session_id = as_str(meta.get("sessionId")) or _id_from_name(path)
    if checkpoint is not None:
        diag.count("records", len(checkpoint))
        builders = _from_checkpoint(checkpoint, session_id, diag)
    else:
        builders = _from_messages(messages, session_id, diag)

    emitted, _held = select_turns(
        builders, final=opts.final, after_source_id=after_source_id, diag=diag, tail_text=opts.tail_text, heuristic=True
    )
    if after_source_id is not None and after_source_id not in {b.source_id for b in builders}:
        diag.warn("cursor", "the cursor's last source id is no longer in the file; every turn returned")
    turns = finalize(emitted, diag, skip_nomem=opts.skip_nomem, redact=opts.redact)
    started = parse_ts(meta.get("startTime")) or min((t.timestamp for t in turns if t.timestamp), default=None)
    title = as_str(meta.get("summary")) if isinstance(meta.get("summary"), str) else None
    size = file_size(source)
    return ImportedSession(
        agent=AGENT,
        session_id=session_id,
        cwd=opts.cwd or _project_root(path) or _first_directory(meta),
        started_at=started,
        title=title,
        source_path=path,
        turns=turns,
        warnings=diag.warnings(),
        stats=diag.stats,
        cursor=ReadCursor(
            offset=size if size is not None else len(raw),
            last_source_id=emitted[-1].source_id if emitted else after_source_id,
        ),
    )


def _looks_like_jsonl(text: str) -> bool:
    first = next((line for line in text.split("\n") if line.strip()), "")
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict)


def _read_jsonl(raw: bytes, diag: Diagnostics) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    meta: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}
    for line in iter_lines(raw):
        obj = load_json_line(line, diag, incremental=False)
        if obj is None:
            continue
        diag.count("records")
        if isinstance(obj.get("$rewindTo"), str):
            target = obj["$rewindTo"]
            if target in messages:
                keys = list(messages)
                for k in keys[keys.index(target) :]:
                    del messages[k]
            else:
                messages.clear()
            diag.count("rewinds")
        elif isinstance(obj.get("$set"), dict):
            meta.update(obj["$set"])
        elif isinstance(obj.get("id"), str):
            if obj["id"] in messages:
                diag.count("updated_messages")
            messages[obj["id"]] = obj
        elif isinstance(obj.get("sessionId"), str):
            meta.update(obj)
        else:
            diag.warn("unknown_record", f"line {line.lineno}: unknown record ignored")
            diag.count("skipped:unknown")
    replaced = meta.get("messages")
    if isinstance(replaced, list) and replaced:
        return meta, [m for m in replaced if isinstance(m, dict)]
    return meta, list(messages.values())


_SALVAGE_ID_RE = re.compile(r'"sessionId"\s*:\s*"([^"\\]+)"')
_SALVAGE_START_RE = re.compile(r'"startTime"\s*:\s*"([^"\\]+)"')
_SALVAGE_MESSAGES_RE = re.compile(r'"messages"\s*:\s*\[')


def _salvage(text: str, diag: Diagnostics) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Messages of a damaged (e.g. truncated) legacy session file, as far as they parse."""
    meta: dict[str, Any] = {}
    m = _SALVAGE_ID_RE.search(text)
    if m:
        meta["sessionId"] = m.group(1)
    m = _SALVAGE_START_RE.search(text)
    if m:
        meta["startTime"] = m.group(1)
    messages: list[dict[str, Any]] = []
    arr = _SALVAGE_MESSAGES_RE.search(text)
    decoder = json.JSONDecoder()
    if arr:
        pos = arr.end()
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text) or text[pos] == "]":
                break
            try:
                value, pos = decoder.raw_decode(text, pos)
            except (ValueError, RecursionError):
                break
            if isinstance(value, dict):
                messages.append(value)
    diag.warn("damaged", f"session file is not valid JSON; {len(messages)} message(s) salvaged")
    diag.count("records", len(messages))
    return meta, messages


def _id_from_name(path: str | None) -> str:
    if path:
        return Path(path).stem
    return "gemini-" + short_hash("no-session-id")


def _project_root(path: str | None) -> str | None:
    if not path:
        return None
    here = Path(path).parent
    for d in (here, *list(here.parents)[:3]):
        marker = d / ".project_root"
        try:
            if marker.is_file():
                value = marker.read_text(encoding="utf-8", errors="replace").strip()
                return value or None
        except OSError:
            continue
    return None


def _first_directory(meta: dict[str, Any]) -> str | None:
    dirs = meta.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        return dirs[0]
    return None


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    if content is None:
        return []
    return [content]


def _has_function_response(content: Any) -> bool:
    return any(isinstance(p, dict) and "functionResponse" in p for p in _parts(content))


def _response_text(part: dict[str, Any]) -> tuple[str, bool]:
    """(text, failed) of a ``functionResponse`` part."""
    fr = as_dict(part.get("functionResponse"))
    resp = fr.get("response")
    if isinstance(resp, dict):
        if resp.get("error"):
            return json_text(resp["error"]), True
        for key in ("output", "content", "result"):
            if key in resp:
                return json_text(resp[key]), False
        return json_text(resp), False
    return json_text(resp) if resp is not None else "", False


def _result_text(result: Any) -> str | None:
    parts = _parts(result)
    if not parts:
        return None
    texts: list[str] = []
    for p in parts:
        if isinstance(p, dict) and "functionResponse" in p:
            texts.append(_response_text(p)[0])
        elif isinstance(p, dict) and isinstance(p.get("text"), str):
            texts.append(p["text"])
        elif isinstance(p, str):
            texts.append(p)
    return "\n".join(t for t in texts if t)


def _msg_id(m: dict[str, Any], session_id: str, idx: int, text: str) -> str:
    mid = m.get("id")
    if isinstance(mid, str) and mid:
        return mid
    return "gemini:" + short_hash(session_id, idx, text)


class _Builder:
    def __init__(self, diag: Diagnostics) -> None:
        self.diag = diag
        self.builders: list[TurnBuilder] = []
        self.current: TurnBuilder | None = None
        self.tools: dict[str, PendingTool] = {}

    def prompt(self, source_id: str, text: str, ts: Any, idx: int) -> None:
        text = strip_injected_context(text)
        if not text:
            self.diag.count("skipped:empty_prompt")
            return
        if text.startswith("<state_snapshot>"):
            b = TurnBuilder(
                source_id=source_id,
                user_message=COMPACTION_MARKER,
                timestamp=parse_ts(ts),
                offset=idx,
                kind="compaction",
            )
            b.add_text(text)
            self.builders.append(b)
            self.diag.count("compaction_summaries")
            return
        kind = "command" if _COMMAND_RE.match(text) else "prompt"
        b = TurnBuilder(source_id=source_id, user_message=text, timestamp=parse_ts(ts), offset=idx, kind=kind)
        self.builders.append(b)
        self.current = b

    def target(self, source_id: str, ts: Any, idx: int) -> TurnBuilder:
        if self.current is None:
            self.diag.warn(
                "headless", f"message {idx}: model output before any user prompt kept in a turn without prompt"
            )
            b = TurnBuilder(source_id=source_id, user_message="", timestamp=parse_ts(ts), offset=idx)
            self.builders.append(b)
            self.current = b
        return self.current

    def tool(self, turn: TurnBuilder, tid: str | None, name: str, args: Any, ts: Any) -> PendingTool:
        if tid is not None and tid in self.tools:
            return self.tools[tid]
        tool = PendingTool(name=name, args=args, source_id=tid, started=parse_ts(ts))
        turn.add_tool(tool)
        if tid is not None:
            self.tools[tid] = tool
        return tool


def _from_messages(messages: list[dict[str, Any]], session_id: str, diag: Diagnostics) -> list[TurnBuilder]:
    b = _Builder(diag)
    for idx, m in enumerate(messages):
        mtype = m.get("type")
        ts = m.get("timestamp")
        if mtype == "user":
            content = m.get("displayContent") or m.get("content")
            if _has_function_response(m.get("content")) and not text_of_blocks(_parts(content)).strip():
                diag.count("skipped:function_response_message")
                continue
            text = text_of_blocks(_parts(content)).strip()
            b.prompt(_msg_id(m, session_id, idx, text), text, ts, idx)
        elif mtype in ("gemini", "model", "assistant"):
            text = text_of_blocks(_parts(m.get("content"))).strip()
            calls = m.get("toolCalls")
            calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
            if not text and not calls:
                continue
            turn = b.target(_msg_id(m, session_id, idx, text), ts, idx)
            turn.add_text(text)
            for c in calls:
                _tool_call(b, turn, c)
        else:
            diag.count(f"skipped:{mtype}")
    return b.builders


def _tool_call(b: _Builder, turn: TurnBuilder, c: dict[str, Any]) -> None:
    tid = c.get("id")
    tid = tid if isinstance(tid, str) and tid else None
    tool = b.tool(turn, tid, as_str(c.get("name")) or "unknown", c.get("args"), c.get("timestamp"))
    status = c.get("status")
    result = _result_text(c.get("result"))
    if result is None and isinstance(c.get("resultDisplay"), str):
        result = c["resultDisplay"]
    if status == "success":
        tool.finish(result, True, tool.started)
    elif status == "error":
        tool.finish(result, False, tool.started)
    elif status == "cancelled" and result:
        tool.finish(result, None, tool.started)
    else:
        return
    if turn.last_event != "text":
        turn.last_event = "tool_result"


def _from_checkpoint(history: list[dict[str, Any]], session_id: str, diag: Diagnostics) -> list[TurnBuilder]:
    b = _Builder(diag)
    by_name: dict[str, list[PendingTool]] = {}
    for idx, c in enumerate(history):
        role = c.get("role")
        parts = [p for p in _parts(c.get("parts")) if isinstance(p, dict)]
        if role == "user":
            texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
            for p in parts:
                if "functionResponse" in p:
                    fr = as_dict(p["functionResponse"])
                    fid = fr.get("id")
                    tool = b.tools.get(fid) if isinstance(fid, str) else None
                    name = as_str(fr.get("name")) or ""
                    if tool is None and by_name.get(name):
                        tool = next((t for t in by_name[name] if not t.has_result), None)
                    if tool is not None:
                        out, failed = _response_text(p)
                        tool.finish(out, not failed, None)
                        if b.current is not None and b.current.last_event != "text":
                            b.current.last_event = "tool_result"
            text = "\n".join(texts).strip()
            if text:
                b.prompt("gemini:" + short_hash(session_id, idx, text), text, None, idx)
        elif role == "model":
            texts = [p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought")]
            calls = [as_dict(p["functionCall"]) for p in parts if "functionCall" in p]
            text = "\n".join(texts).strip()
            if not text and not calls:
                continue
            turn = b.target("gemini:" + short_hash(session_id, idx, text), None, idx)
            turn.add_text(text)
            for n, call in enumerate(calls):
                fid = call.get("id")
                name = as_str(call.get("name")) or "unknown"
                tid = fid if isinstance(fid, str) and fid else f"{session_id}:{idx}:{n}:{name}"
                tool = b.tool(turn, tid, name, call.get("args"), None)
                by_name.setdefault(name, []).append(tool)
        else:
            diag.count(f"skipped:role:{role}")
    return b.builders


def _read(source: Source, opts: ReadOptions) -> list[ImportedSession]:
    return [_parse(source, opts)]


FORMAT = TranscriptFormat(
    name=AGENT,
    label="Gemini CLI",
    read=_read,
    resume="source-id",
    aliases=("gemini-cli",),
    patterns=("session-*.json", "session-*.jsonl"),
    claims_name=lambda name: name.endswith(".json"),
    record_rules=((1, lambda obj: "sessionId" in obj and "projectHash" in obj),),
    name_hint=lambda name: name.startswith("session-"),
)
"""Gemini CLI session files and checkpoints (rewritten in place: read whole, filtered by source id)."""
