"""Claude Code transcript importer (``~/.claude/projects/<encoded-cwd>/<session-id>.jsonl``).

Format, as documented by public analyses of real transcripts (Claude Code 1.0.x - 2.1.x) and
observed behaviour of the CLI, since Anthropic publishes no schema:

* one JSON object per line; ``type`` is ``user``, ``assistant``, ``summary``, ``system``,
  ``progress``, ``file-history-snapshot``, ``queue-operation``, ``attachment`` ... Every message
  record has ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp`` (ISO 8601), ``cwd``,
  ``version``, ``gitBranch``, ``isSidechain``; ``message`` is an Anthropic API message.
* assistant content blocks are ``text``, ``thinking``, ``tool_use`` (``id``, ``name``,
  ``input``); a streamed response is written as several lines sharing ``message.id`` (one block
  per line, distinct ``uuid``s) and is merged back here, never duplicated.
* tool results come back in ``user`` records whose content holds ``tool_result`` blocks
  (``tool_use_id``, ``content``, ``is_error``); they are joined to their ``tool_use`` by id.
  ``duration_ms`` is the gap between the two records' timestamps.
* ``isMeta`` user records (caveats, skill text, stop-hook feedback), ``isVisibleInTranscriptOnly``
  records, local command echoes (``<command-name>``, ``<local-command-stdout>``, ``<bash-input>``
  ...) and ``[Request interrupted by user]`` markers are not prompts. A slash command becomes a
  turn (``/name args``) only if the assistant answered it.
* compaction: a ``system``/``compact_boundary`` record, then a ``user`` record with
  ``isCompactSummary: true`` holding the summary. **Decision:** the summary is kept as a marked
  turn (``user_message == COMPACTION_MARKER``, summary as ``assistant_message``, source id = the
  summary record's uuid); the turn in progress (auto-compaction mid-task) keeps collecting the
  assistant records that follow.
* sidechains (``isSidechain: true``, subagent conversations written inline by older versions)
  are skipped: the parent's ``Task``/``Agent`` tool call already carries the subagent's report.
  A file made only of sidechain records (an ``agent-*.jsonl`` file) is imported as its own
  session, with a warning.
* ``summary`` records (``summary``, ``leafUuid``) and ``custom-title`` give the session title;
  ``progress``, ``file-history-snapshot``, ``queue-operation``, ``system`` and hook
  ``attachment`` records are skipped (counted in ``stats``); an ``attachment`` of type
  ``queued_command`` (a prompt typed while the assistant worked) is a prompt.

A turn runs from a real prompt to the last assistant record before the next prompt; its
``assistant_message`` is every assistant text of the turn, in order, joined by blank lines. The
turn's source id is the prompt record's ``uuid``. A tool call without a result gets
``success=None`` and ``INTERRUPTED_NOTE`` as result.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .claude_code_turns import Record, assemble, queued_prompt
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

__all__ = ["AGENT", "FORMAT", "parse_claude_code"]

AGENT = "claude-code"

_SKIPPED_TYPES = frozenset(
    {
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "system",
        "attachment",
        "summary",
        "custom-title",
        "tag",
        "agent-name",
        "last-prompt",
        "pr-link",
    }
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TURN_END_SUBTYPES = frozenset({"turn_duration", "stop_hook_summary"})


def parse_claude_code(
    source: Source,
    *,
    include_incomplete: bool = True,
    skip_nomem: bool = True,
    redact: bool = True,
) -> ImportedSession:
    """Import a whole Claude Code transcript.

    ``include_incomplete=False`` holds back a last turn that nothing marks as finished (the
    file is still being written); ``skip_nomem`` drops turns whose prompt carries ``#nomem``;
    ``redact`` replaces secrets in every turn. Raises ``InvalidInput`` only if unreadable.
    """
    return _parse(source, ReadOptions(final=include_incomplete, skip_nomem=skip_nomem, redact=redact))


def _parse(source: Source, opts: ReadOptions) -> ImportedSession:
    """One read of a transcript: the whole file, or (``opts.incremental``) what follows the
    cursor. A turn is finished by a later prompt, a ``system``/``turn_duration`` record, the Stop
    hook's text (Claude Code may run the hook before the final assistant message reaches the
    transcript) or ``opts.final``."""
    start, incremental = opts.start, opts.incremental
    diag = Diagnostics()
    records: list[Record] = []
    seen: set[str] = set()
    session_ids: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    cwd: str | None = None
    title: str | None = None
    custom_title: str | None = None
    end_offset = start

    for line in iter_lines(source, start):
        if incremental and not line.terminated:
            break  # a writer may still be appending to it: read it next time
        end_offset = line.end
        obj = load_json_line(line, diag, incremental=incremental)
        if obj is None:
            continue
        diag.count("records")
        uuid = obj.get("uuid")
        key = uuid if isinstance(uuid, str) and uuid else "line:" + short_hash(line.text)
        if key in seen:
            diag.count("duplicates")
            continue
        seen.add(key)
        rtype = obj.get("type")
        sid = obj.get("sessionId")
        if isinstance(sid, str) and sid:
            session_ids[sid] += 1
        if cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
            cwd = as_str(obj["cwd"])
        if not isinstance(rtype, str):
            diag.warn("no_type", f"line {line.lineno}: record without a type ignored")
            diag.count("skipped:untyped")
            continue
        if rtype in ("user", "assistant"):
            kind = rtype
        elif rtype == "system" and obj.get("subtype") in _TURN_END_SUBTYPES:
            kind = "turn_end"
            diag.count(f"skipped:system:{obj['subtype']}")
        elif rtype == "attachment" and queued_prompt(obj) is not None:
            kind = "queued"
        else:
            if rtype == "summary":
                title = as_str(obj.get("summary")) or title
            elif rtype == "custom-title":
                custom_title = as_str(obj.get("customTitle")) or custom_title
            if rtype in _SKIPPED_TYPES:
                sub = obj.get("subtype") if rtype == "system" else None
                diag.count(f"skipped:{rtype}" + (f":{sub}" if isinstance(sub, str) else ""))
            else:
                unknown[rtype] += 1
            continue
        ts = parse_ts(obj.get("timestamp"))
        records.append(Record(line.offset, line.lineno, ts, ts or _EPOCH, obj, kind))

    diag.unknown_types(unknown)

    sidechain_file = start == 0 or (incremental and _file_is_sidechain(source))
    records = _main_chain(records, diag, sidechain_file=sidechain_file)
    records = _in_time_order(records, diag)

    builders = assemble(records, diag, late_records_expected=start > 0)
    emitted, held = select_turns(
        builders, final=opts.final, after_source_id=opts.after_source_id, diag=diag, tail_text=opts.tail_text
    )
    turns = finalize(emitted, diag, skip_nomem=opts.skip_nomem, redact=opts.redact)

    path = source_path(source)
    session_id = _session_id(session_ids, path, diag, hint=opts.session_id)
    last_id = emitted[-1].source_id if emitted else opts.after_source_id
    return ImportedSession(
        agent=AGENT,
        session_id=session_id,
        cwd=cwd,
        started_at=min((r.ts for r in records if r.ts is not None), default=None),
        title=custom_title or title,
        source_path=path,
        turns=turns,
        warnings=diag.warnings(),
        stats=diag.stats,
        cursor=ReadCursor(offset=held.offset if held is not None else end_offset, last_source_id=last_id),
    )


def _file_is_sidechain(source: Source) -> bool:
    """Whether the first message record of the file is a sidechain (a subagent transcript)."""
    diag = Diagnostics()
    for line in iter_lines(source):
        if line.lineno > 200:
            break
        obj = load_json_line(line, diag, incremental=True)
        if obj is not None and obj.get("type") in ("user", "assistant"):
            return obj.get("isSidechain") is True
    return False


def _main_chain(records: list[Record], diag: Diagnostics, *, sidechain_file: bool) -> list[Record]:
    """The records of the main conversation (every record, for a subagent's own file)."""
    main = [r for r in records if r.data.get("isSidechain") is not True]
    skipped = len(records) - len(main)
    if skipped and not main and sidechain_file:
        diag.warn("sidechain", "every record is a sidechain (subagent transcript); imported as its own session")
        return records
    if skipped:
        diag.count("skipped:sidechain", skipped)
    return main


def _in_time_order(records: list[Record], diag: Diagnostics) -> list[Record]:
    """Records sorted by timestamp (stable; untimed records keep their neighbour's time)."""
    previous = _EPOCH
    latest = _EPOCH
    inversions = 0
    for r in records:
        if r.ts is None:
            r.order = previous
        else:
            if r.ts < latest - timedelta(seconds=1):
                inversions += 1
            latest = max(latest, r.ts)
        previous = r.order
    if inversions:
        diag.warn("order", f"{inversions} record(s) out of timestamp order; processed in timestamp order")
        diag.count("reordered_records", inversions)
        records = sorted(records, key=lambda r: r.order)
    return records


def _session_id(ids: Counter[str], path: str | None, diag: Diagnostics, *, hint: str | None = None) -> str:
    stem = Path(path).stem if path else None
    if not ids and hint:
        return hint
    if len(ids) > 1:
        diag.warn("session_ids", f"records of {len(ids)} sessions in one file (resumed or forked session)")
    if stem and stem in ids:
        return stem
    if ids:
        return ids.most_common(1)[0][0]
    if stem:
        return stem
    return "claude-" + short_hash("no-session-id", path)


def _read(source: Source, opts: ReadOptions) -> list[ImportedSession]:
    return [_parse(source, opts)]


_CLAUDE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "progress", "file-history-snapshot", "queue-operation", "attachment"}
)


FORMAT = TranscriptFormat(
    name=AGENT,
    label="Claude Code",
    read=_read,
    resume="offset",
    aliases=("claude", "claude_code"),
    patterns=("*.jsonl",),
    record_rules=((2, lambda obj: obj.get("type") in _CLAUDE_TYPES or "parentUuid" in obj),),
)
"""Claude Code's ``<session-id>.jsonl`` transcripts (appended to: read on at the cursor's offset)."""
