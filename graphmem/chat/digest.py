"""The periodic digest: durable facts drawn from a room's live messages, then those messages cleared.

At fixed hours (default 2, 6, 10, 14, 18 and 22 in Europe/Paris), and whenever a worker starts while
the last digest is older than the latest of those hours, each room with live messages is digested:

1. **claim** -- a ``(:Digest {state: 'claimed'})`` node takes the room's oldest live messages not taken
   yet (up to ``max_messages``; each message gets the digest's id, so no other digest takes it);
2. **extract** -- an LLM reads them (``author (dd/mm hh:mm): text``) and answers with durable facts,
   temporary states with a TTL; the answer is kept on the digest (``state: 'extracted'``);
3. **store** -- each fact goes through :func:`~graphmem.facts.store.remember` (so a fact similar to a
   known one updates it), the digest counts how many are stored and links them (``PRODUCED``);
4. **clear** -- the messages the digest took, and only those, are deleted (``state: 'done'``).

A digest stopped anywhere resumes where it stopped on the next run: a claimed one asks the model
again about the same messages, an extracted one stores its remaining facts (a fact stored just
before the stop comes back from ``remember`` as ``unchanged``), so nothing is lost or stored twice.
Without an LLM no digest runs and the live messages stay; :func:`digest_status` says why.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ..arguments import count, optional_text
from ..config import Settings
from ..db import Database, DeferredWrites
from ..db.rows import native_row
from ..embedding import Embedder
from ..errors import ConfigError, InvalidInput, quoted
from ..facts.corrections import remember_correcting
from ..facts.extract import ExtractedFact, FactExtractor
from ..facts.judge import FactJudge
from ..facts.model import FactScope, FactScopeLike, RememberResult
from ..models import utcnow
from ..retrieval.reltime import absolute_time

__all__ = ["DIGEST_PROMPT", "DigestConfig", "DigestRun", "DigestStatus", "Digester", "digest_status",
           "last_slot", "recent_digests", "run_digest"]

log = logging.getLogger("graphmem.chat")

DIGEST_PROMPT = """You read excerpts of a group chat (one message per line: author (dd/mm hh:mm): text) and
extract what a member of the group should still know in a month. Store connections, not general
knowledge: facts about the people (where they live, work, what they like, their relations), the group and
its plans, never what any model already knows, never small talk. A temporary state ("I'm sick", "I'm in
Greece this week") gets a ttl such as "7d". Name people by their name, never "I" or "he".
Reply with one JSON object: {"facts": [{"content": str, "type": one of fact, preference, identity,
decision, event, "subjects": [short lowercase tags, the people's names first], "ttl": null or a duration
like "7d", "scope": "global"}]}. Write each fact as one self-contained sentence in the language of the
messages. {"facts": []} when nothing is worth remembering."""

CLEAR_BATCH = 5000


@dataclass(frozen=True)
class DigestConfig:
    """When digests run and how much each reads."""

    hours: tuple[int, ...] = (2, 6, 10, 14, 18, 22)
    """The hours of the day (in ``timezone``) at which a digest is due."""
    timezone: str = "Europe/Paris"
    max_messages: int = 400
    """Live messages one digest reads at most (a busier room gets several digests in a row)."""
    scope: str = "global"
    """Where the digested facts are stored (any fact scope: ``global``, ``project:<path>``, ...)."""

    def __post_init__(self) -> None:
        if not self.hours or any(not isinstance(h, int) or not 0 <= h <= 23 for h in self.hours):
            raise InvalidInput("digest hours must be whole hours between 0 and 23")
        try:
            ZoneInfo(self.timezone)
        except (KeyError, ValueError) as e:
            raise InvalidInput(f"unknown digest time zone {quoted(self.timezone)}") from e
        if not 1 <= self.max_messages <= 5000:
            raise InvalidInput("digest max_messages must be between 1 and 5000")
        FactScope.parse(self.scope)

    @classmethod
    def from_settings(cls, settings: Settings) -> DigestConfig:
        """From ``GRAPHMEM_DIGEST_HOURS`` (``"2,6,10"``), ``GRAPHMEM_DIGEST_TIMEZONE`` and
        ``GRAPHMEM_DIGEST_SCOPE``; InvalidInput naming the setting on a bad value."""
        try:
            hours = tuple(sorted({int(x) for x in settings.digest_hours.replace(" ", "").split(",") if x}))
        except ValueError:
            hours = ()
        if not hours or any(not 0 <= h <= 23 for h in hours):
            raise InvalidInput(f"GRAPHMEM_DIGEST_HOURS must be hours 0-23 separated by commas, "
                               f"got {settings.digest_hours!r}")
        try:
            return cls(hours=hours, timezone=settings.digest_timezone, scope=settings.digest_scope)
        except InvalidInput as e:
            raise InvalidInput(f"GRAPHMEM_DIGEST_TIMEZONE / GRAPHMEM_DIGEST_SCOPE: {e}") from e


@dataclass
class DigestStatus:
    """Where the digest stands (``room`` None: every room)."""

    room: str | None
    llm: bool
    last: datetime | None
    digests: int
    waiting: int
    """Live messages no digest has taken yet."""
    unfinished: int
    due: bool
    next_at: datetime
    reason: str
    """One line: why a digest will or will not run."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("last", "next_at"):
            d[key] = d[key].isoformat() if d[key] is not None else None
        return d


@dataclass
class DigestRun:
    """What one run did: one entry per digest (``{"id", "room", "messages", "facts", "stored", ...}``)."""

    digests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def facts(self) -> int:
        return sum(len(d["results"]) for d in self.digests)

    @property
    def cleared(self) -> int:
        return sum(int(d["cleared"]) for d in self.digests)


def last_slot(now: datetime, config: DigestConfig) -> datetime:
    """The latest digest hour at or before ``now`` (in UTC)."""
    local = now.astimezone(ZoneInfo(config.timezone))
    for back in range(0, 3):
        day = (local - timedelta(days=back)).date()
        for hour in sorted(config.hours, reverse=True):
            slot = datetime(day.year, day.month, day.day, hour, tzinfo=local.tzinfo)
            if slot <= local:
                return slot.astimezone(ZoneInfo("UTC"))
    raise AssertionError("a digest hour exists within three days")  # hours is never empty


def next_slot(now: datetime, config: DigestConfig) -> datetime:
    local = now.astimezone(ZoneInfo(config.timezone))
    for ahead in range(0, 3):
        day = (local + timedelta(days=ahead)).date()
        for hour in sorted(config.hours):
            slot = datetime(day.year, day.month, day.day, hour, tzinfo=local.tzinfo)
            if slot > local:
                return slot.astimezone(ZoneInfo("UTC"))
    raise AssertionError("a digest hour exists within three days")


def digest_status(db: Database, *, llm: bool, config: DigestConfig, room: str | None = None,
                  now: datetime | None = None) -> DigestStatus:
    """Whether a digest is due (``room`` or every room) and why it will or will not run."""
    now = now or utcnow()
    row = native_row(db.read("digest/status", room=optional_text(room, "room"))[0])
    last: datetime | None = row["last"]
    waiting, unfinished = int(row["waiting"]), int(row["unfinished"])
    slot = last_slot(now, config)
    work = waiting > 0 or unfinished > 0
    due = work and (last is None or last < slot or unfinished > 0)
    if not llm:
        reason = ("no LLM configured (GRAPHMEM_SUMMARIZER=openai with GRAPHMEM_OPENAI_API_KEY or "
                  f"GRAPHMEM_OPENAI_BASE_URL): no digest runs, the {waiting} live messages stay")
    elif not work:
        reason = "nothing to digest: no live message waits"
    elif due:
        reason = f"due: {waiting} live messages wait" + (f", {unfinished} digest(s) to resume" if unfinished else "")
    else:
        reason = f"{waiting} live messages wait for the next digest hour"
    return DigestStatus(room=room, llm=llm, last=last, digests=int(row["digests"]), waiting=waiting,
                        unfinished=unfinished, due=due and llm, next_at=next_slot(now, config), reason=reason)


def _render(rows: Sequence[dict[str, Any]], zone: ZoneInfo) -> str:
    return "\n".join(f"{r['author']} ({absolute_time(native_row(r)['at'], zone, year=False)}): {r['text']}"
                     for r in rows)


def _facts_json(facts: Sequence[ExtractedFact]) -> str:
    return json.dumps([{"content": f.content, "type": f.type, "subjects": list(f.subjects), "ttl": f.ttl}
                       for f in facts], ensure_ascii=False)


def run_digest(
    db: Database,
    extractor: FactExtractor,
    *,
    config: DigestConfig,
    embedder: Embedder | None = None,
    deferred: DeferredWrites | None = None,
    redact: bool = True,
    judge: FactJudge | None = None,
    rooms: Sequence[str] | None = None,
    now: Callable[[], datetime] = utcnow,
    on_fact: Callable[[RememberResult], None] | None = None,
) -> DigestRun:
    """Digest ``rooms`` (every room with live messages or an unfinished digest when None): resume
    each room's unfinished digest, then digest its waiting messages ``max_messages`` at a time.
    Facts are stored through remember with corrections (``judge``: an LLM deciding add / update /
    no-op, else the correction rule). ``on_fact`` is called after each stored fact (progress)."""
    run = DigestRun()
    targets = list(rooms) if rooms is not None else [r["room"] for r in db.read("digest/rooms", limit=10_000)]
    scope: FactScopeLike = config.scope
    zone = ZoneInfo(config.timezone)
    for room in targets:
        drained = False
        while not drained:
            rows = db.read("digest/unfinished", room=room)
            digest = native_row(rows[0]["digest"]) if rows else None
            if digest is None:
                claimed = db.write("digest/claim", id=str(uuid.uuid4()), room=room, now=now(),
                                   limit=config.max_messages)
                if not claimed:
                    break  # nothing left in this room
                digest = native_row(claimed[0]["digest"])
                # a room drained by this claim is done for this run: messages arriving meanwhile wait
                drained = int(digest["messages"]) < config.max_messages
            run.digests.append(_finish(db, extractor, digest, zone=zone, scope=scope, embedder=embedder,
                                       deferred=deferred, redact=redact, judge=judge, now=now, on_fact=on_fact))
    return run


def _finish(db: Database, extractor: FactExtractor, digest: dict[str, Any], *, zone: ZoneInfo, scope: FactScopeLike,
            embedder: Embedder | None, deferred: DeferredWrites | None, redact: bool, judge: FactJudge | None,
            now: Callable[[], datetime], on_fact: Callable[[RememberResult], None] | None) -> dict[str, Any]:
    """Take one digest from where it stands to done (see the module docstring)."""
    did = digest["id"]
    messages = db.read("digest/messages", id=did)
    if digest["state"] == "claimed":
        facts = (extractor.extract_text(_render(messages, zone), instructions=DIGEST_PROMPT,
                                        on_usage=lambda u: db.write("usage/digest", id=did, **u.params()))
                 if messages else [])
        db.write("digest/extracted", id=did, facts=_facts_json(facts), now=now())
        items: list[dict[str, Any]] = json.loads(_facts_json(facts))
    else:
        items = json.loads(digest["facts"] or "[]")
    done = int(digest["done"] or 0)
    results: list[RememberResult] = []
    for i in range(done, len(items)):
        item = items[i]
        result = remember_correcting(db, item["content"], item.get("subjects") or [], judge=judge, embedder=embedder,
                                     deferred=deferred, redact=redact, type=item.get("type"), ttl=item.get("ttl"),
                                     scope=scope, source="digest")
        db.write("digest/stored", id=did, done=i + 1, factId=result.fact.id)
        results.append(result)
        if on_fact is not None:
            on_fact(result)
    cleared = 0
    while True:
        n = int(db.write("digest/clear", id=did, batch=CLEAR_BATCH)[0]["deleted"])
        cleared += n
        if n < CLEAR_BATCH:
            break
    db.write("digest/finish", id=did, now=now(), cleared=cleared)
    log.info("digest %s of %s: %d messages, %d facts", did, digest["room"], len(messages), len(items))
    return {"id": did, "room": digest["room"], "messages": len(messages), "facts": [x["content"] for x in items],
            "results": results, "resumed_at": done if digest["state"] == "extracted" else None, "cleared": cleared}


def recent_digests(db: Database, *, room: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """The latest digests with the facts each produced, newest first."""
    return [{**native_row(r["digest"]), "facts": list(r["facts"])} for r in db.read(
        "digest/recent", room=optional_text(room, "room"), limit=count(limit, "limit"))]


class Digester:
    """The digest of one memory: its LLM (None: digests do not run), settings and stores."""

    def __init__(self, db: Database, extractor: FactExtractor | None, *, config: DigestConfig | None = None,
                 embedder: Embedder | None = None, deferred: DeferredWrites | None = None, redact: bool = True,
                 judge: FactJudge | None = None, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.extractor = extractor
        self.config = config or DigestConfig()
        self.embedder = embedder
        self.deferred = deferred
        self.redact = redact
        self.judge = judge
        self.clock = clock

    def status(self, room: str | None = None) -> DigestStatus:
        return digest_status(self.db, llm=self.extractor is not None, config=self.config, room=room, now=self.clock())

    def run(self, rooms: Sequence[str] | None = None, *,
            on_fact: Callable[[RememberResult], None] | None = None) -> DigestRun:
        """Digest now (see :func:`run_digest`); :class:`~graphmem.errors.ConfigError` without an LLM."""
        if self.extractor is None:
            raise ConfigError(self.status().reason)
        return run_digest(self.db, self.extractor, config=self.config, embedder=self.embedder,
                          deferred=self.deferred, redact=self.redact, judge=self.judge, rooms=rooms, now=self.clock,
                          on_fact=on_fact)

    def run_if_due(self) -> DigestRun | None:
        """Digest when an LLM is configured and a digest is due (see :func:`digest_status`)."""
        if self.extractor is None or not self.status().due:
            return None
        return self.run()
