"""Generated coding-assistant histories with labelled questions (the data of ``graphmem bench coding``).

Deterministic for ``(seed, index)``. Each haystack is one person's ~3 months of sessions with a coding
assistant over five projects: ``sessions`` sessions of 4-20 turns, each about one topic of one
project (retries, migrations, the parser, caching, rate limiting, auth, CI, background jobs,
logging, pagination, dependencies), a short user request and a long assistant reply (typically
1,500-4,000 characters: explanation paragraphs, a code block, shell output, a diff) built from the
banks in :mod:`graphmem_devtools.bench.coding_banks`. Neighbouring turns of a session share its
topic, file, function and error, so a gold turn's neighbours look like it.

Questions (``KINDS``), each with the source ids of its gold turns:

* decision -- "what did we agree on for retrying ... in <project>?"; the same decision, with other
  values, is planted in another project's session as a decoy;
* temporal -- "why did the migration test fail last week?"; the gold session lies in the named
  window before the haystack's date, and the same project has two or three sessions on the same topic
  at other times giving other causes;
* update -- a value set in one session and changed in a later one; gold is the later turn;
* aggregation -- two or three items (endpoints given rate limits, tables given indexes...), each in
  a different session of the project; gold is all of them;
* single-session -- one fact (a port, a pinned version, a log path);
* preference -- stated by the user in passing inside a request about something else.

Evidence usually sits in the middle of a long reply (``evidence_in="request"``: in the user's request
of such a turn instead). Haystacks with an even index are the tuning
half, odd ones the test half.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from . import coding_banks as B
from .haystack_core import HALF_NAMES, Haystack, HaystackQuestion, HaystackSession, HaystackTurn

__all__ = ["EVIDENCE_IN", "KINDS", "EvidenceIn", "build_coding_haystacks", "coding_haystack", "dump_haystacks"]

KINDS = ("decision", "temporal", "update", "aggregation", "single-session", "preference")
PER_KIND = {"decision": 3, "temporal": 3, "update": 2, "aggregation": 2, "single-session": 3, "preference": 2}
SPAN_DAYS = 90
EvidenceIn = Literal["reply", "request"]
EVIDENCE_IN: tuple[EvidenceIn, ...] = ("reply", "request")
BASE = datetime(2025, 1, 6, tzinfo=UTC)


@dataclass
class _Plan:
    project: str
    topic: str
    ts: datetime
    turns: int
    needles: dict[int, tuple[str, bool]] = field(default_factory=dict)
    """turn index -> (evidence text, said by the user)."""
    key: str = ""


@dataclass
class _Q:
    kind: str
    question: str
    gold: list[tuple[_Plan, int]]


class _Gen:
    def __init__(self, seed: int, index: int, sessions: int, turns: tuple[int, int], evidence_in: str) -> None:
        self.rng = random.Random(f"graphmem-coding-{seed}-{index}")
        self.in_requests = evidence_in == "request"
        self.index, self.seed, self.sessions, self.turns = index, seed, sessions, turns
        self.start = BASE + timedelta(days=self.rng.randrange(365))
        self.now = self.start + timedelta(days=SPAN_DAYS, hours=17, minutes=self.rng.randrange(60))
        self.projects = self.rng.sample(B.PROJECTS, 5)
        self.plans: list[_Plan] = []
        self.questions: list[_Q] = []

    # -- sessions and needles --------------------------------------------------------------
    def _ts(self, lo_days: float = 0.0, hi_days: float = SPAN_DAYS - 1) -> datetime:
        day = self.start + timedelta(days=self.rng.uniform(lo_days, hi_days))
        return day.replace(hour=self.rng.randrange(8, 20), minute=self.rng.randrange(60), second=0, microsecond=0)

    def _session(self, project: str, topic: str, ts: datetime) -> _Plan:
        lo, hi = self.turns
        p = _Plan(project, topic, ts, int(self.rng.triangular(lo, hi + 1, min(hi, 7))))
        self.plans.append(p)
        return p

    def _plant(self, p: _Plan, text: str, *, user: bool = False) -> int:
        """Put ``text`` in a free turn of ``p``: usually a middle turn, sometimes the first or last."""
        free = [i for i in range(p.turns) if i not in p.needles]
        middle = [i for i in free if 0 < i < p.turns - 1]
        i = self.rng.choice(middle if middle and self.rng.random() < 0.8 else free)
        p.needles[i] = (text, user or self.in_requests)
        return i

    def _fill(self, template: str, project: str, spec: dict[str, Any], **extra: str) -> str:
        vals = {"project": project, "a": self.rng.choice(spec.get("a", [""])), "b": self.rng.choice(spec.get("b", [""])),
                "table": self.rng.choice(B.TABLES), "lib": self.rng.choice(B.LIBS), **extra}
        return template.format_map(vals)

    def _elsewhere(self, project: str) -> str:
        return self.rng.choice([p for p in self.projects if p != project])

    def plan(self) -> None:
        rng = self.rng
        for spec in rng.sample(B.DECISIONS, PER_KIND["decision"]):
            proj = rng.choice(self.projects)
            s = self._session(proj, spec["topic"], self._ts())
            i = self._plant(s, self._fill(spec["ev"], proj, spec))
            other = self._elsewhere(proj)
            self._plant(self._session(other, spec["topic"], self._ts()), self._fill(spec["ev"], other, spec))
            self.questions.append(_Q("decision", spec["q"].format(project=proj), [(s, i)]))
        for spec in rng.sample(B.UPDATES, PER_KIND["update"]):
            proj = rng.choice(self.projects)
            vals = {"a": rng.choice(spec["a"]), "b": rng.choice(spec["b"])}
            first = self._session(proj, spec["topic"], self._ts(0, SPAN_DAYS * 0.4))
            self._plant(first, spec["first"].format(project=proj, **vals))
            second = self._session(proj, spec["topic"], self._ts(SPAN_DAYS * 0.6, SPAN_DAYS - 1))
            i = self._plant(second, spec["second"].format(project=proj, **vals))
            self.questions.append(_Q("update", spec["q"].format(project=proj), [(second, i)]))
        whens = rng.sample(list(B.WHEN), PER_KIND["temporal"])
        for spec, when in zip(rng.sample(B.TEMPORALS, PER_KIND["temporal"]), whens, strict=True):
            proj = rng.choice(self.projects)
            causes = rng.sample(spec["ev"], len(spec["ev"]))
            s = self._session(proj, spec["topic"], self._window_ts(B.WHEN[when]))
            i = self._plant(s, self._fill(causes[0], proj, spec))
            for cause in causes[1:]:  # the same kind of event at other times, with other causes
                self._plant(self._session(proj, spec["topic"], self._ts(0, SPAN_DAYS - 28)), self._fill(cause, proj, spec))
            self.questions.append(_Q("temporal", spec["q"].format(when=when), [(s, i)]))
        for spec in rng.sample(B.AGGREGATIONS, PER_KIND["aggregation"]):
            proj = rng.choice(self.projects)
            gold = []
            for item in rng.sample(spec["items"], rng.choice((2, 3))):
                s = self._session(proj, spec["topic"], self._ts())
                gold.append((s, self._plant(s, self._fill(spec["ev"], proj, spec, x=item))))
            other = self._elsewhere(proj)
            self._plant(self._session(other, spec["topic"], self._ts()),
                        self._fill(spec["ev"], other, spec, x=rng.choice(spec["items"])))
            self.questions.append(_Q("aggregation", spec["q"].format(project=proj), gold))
        for spec in rng.sample(B.SINGLES, PER_KIND["single-session"]):
            proj = rng.choice(self.projects)
            s = self._session(proj, spec["topic"], self._ts())
            self.questions.append(_Q("single-session", spec["q"].format(project=proj),
                                     [(s, self._plant(s, self._fill(spec["ev"], proj, spec)))]))
        for spec in rng.sample(B.PREFERENCES, PER_KIND["preference"]):
            s = self._session(rng.choice(self.projects), spec["topic"], self._ts())
            self.questions.append(_Q("preference", spec["q"], [(s, self._plant(s, spec["ev"], user=True))]))
        topics = list(B.TOPICS)
        while len(self.plans) < self.sessions:
            self._session(rng.choice(self.projects), rng.choice(topics), self._ts())

    def _window_ts(self, days: int) -> datetime:
        """A time ``days`` before the haystack's date, inside the window the phrase names."""
        if days == 7:  # "last week": Monday to Sunday of the previous calendar week
            monday = self.now.date() - timedelta(days=self.now.weekday() + 7)
            day = datetime(monday.year, monday.month, monday.day, tzinfo=UTC) + timedelta(days=self.rng.randrange(5))
        else:
            day = (self.now - timedelta(days=days)).replace(hour=0, minute=0)
        return day.replace(hour=self.rng.randrange(9, 16), minute=self.rng.randrange(60), second=0, microsecond=0)

    # -- texts ----------------------------------------------------------------------------
    def _slots(self, p: _Plan, topic: dict[str, list[str]]) -> dict[str, str]:
        rng = self.rng
        pkg = p.project.replace("-", "_")
        table = rng.choice(B.TABLES)
        n, m = str(rng.randrange(2, 10)), str(rng.randrange(1, 10))
        base = {"project": p.project, "pkg": pkg, "table": table, "n": n, "m": m, "lib": rng.choice(B.LIBS)}
        base["file"] = rng.choice(topic["files"]).format_map(base)
        base["func"] = rng.choice(topic["funcs"]).format_map(base)
        base["error"] = rng.choice(topic["errors"]).format_map(base)
        return base

    def _reply(self, topic: dict[str, list[str]], slots: dict[str, str], needle: str | None) -> str:
        rng = self.rng
        code = rng.choice(topic["code"])
        lines = code.split("\n")
        cut = rng.randrange(2, max(3, len(lines) - 3))
        diff = "\n".join(["```diff", "--- a/{file}", "+++ b/{file}", f"@@ -{rng.randrange(10, 300)},7 +"
                          f"{rng.randrange(10, 300)},9 @@"] + [" " + x for x in lines[1:cut]] +
                         ["-" + lines[cut], "+" + lines[cut] + "  # changed"] + ["```"])
        paras = rng.sample(topic["paras"], len(topic["paras"]))
        extras = rng.sample(B.GENERIC, len(B.GENERIC))
        blocks = [paras[0], code, paras[1], rng.choice(topic["shell"]), paras[2], diff, paras[3], *extras]
        target = rng.randint(1500, 4000)
        out: list[str] = []
        for b in blocks:
            out.append(b.format_map(slots))
            if sum(len(x) for x in out) >= target:
                break
        if needle is not None:
            r = rng.random()
            at = 0 if r < 0.15 else len(out) if r > 0.85 else rng.randrange(1, max(2, len(out)))
            out.insert(at, needle)
        return "\n\n".join(out)

    def texts(self) -> list[HaystackSession]:
        out: list[HaystackSession] = []
        for si, p in enumerate(sorted(self.plans, key=lambda x: x.ts)):
            p.key = f"code{self.seed}-{self.index}/s{si}"
            topic = B.TOPICS[p.topic]
            slots = self._slots(p, topic)
            turns: list[HaystackTurn] = []
            for ti in range(p.turns):
                if self.rng.random() < 0.3:  # the session drifts a little: another file, function or error
                    fresh = self._slots(p, topic)
                    slots = {**slots, **{k: fresh[k] for k in self.rng.sample(["file", "func", "error"], 1)}}
                needle, by_user = p.needles.get(ti, (None, False))
                user = self.rng.choice(topic["asks"]).format_map(slots)
                if needle is not None and by_user:
                    user = f"{user} {needle}" if self.rng.random() < 0.5 else f"{needle} {user}"
                reply = self._reply(topic, slots, needle if not by_user else None)
                turns.append(HaystackTurn(f"{p.key}/t{ti}", user, reply, files=(slots["file"],)))
            out.append(HaystackSession(p.key, turns, p.ts))
        return out


def coding_haystack(seed: int, index: int, *, sessions: int = 50, turns: tuple[int, int] = (4, 20),
                    evidence_in: EvidenceIn = "reply") -> Haystack:
    """Haystack ``index`` of ``seed`` (the same every time for the same arguments); ``turns`` bounds the
    turns per session (at least 3: evidence goes in a middle turn). ``evidence_in="request"`` puts
    every needle (the gold evidence and its decoys) in the user's request instead of the reply, the
    way a user tells an assistant about their work, with the same long replies around it."""
    if turns[0] < 3 or turns[1] < turns[0]:
        raise ValueError(f"turns per session must be a range of at least 3, got {turns}")
    if evidence_in not in EVIDENCE_IN:
        raise ValueError(f"evidence_in must be one of {', '.join(EVIDENCE_IN)}, got {evidence_in!r}")
    g = _Gen(seed, index, sessions, turns, evidence_in)
    g.plan()
    hay_sessions = g.texts()
    questions = []
    for q in g.questions:
        gold = {f"{p.key}/t{i}" for p, i in q.gold}
        questions.append(HaystackQuestion(q.question, KINDS.index(q.kind), gold, {p.key for p, _ in q.gold},
                                          group=q.kind, now=g.now, evidence=[p.needles[i][0] for p, i in q.gold]))
    return Haystack(f"code{seed}-{index}", hay_sessions, questions, g.now, HALF_NAMES[index % 2])


def build_coding_haystacks(count: int = 20, *, seed: int = 11, sessions: int = 50,
                           turns: tuple[int, int] = (4, 20), evidence_in: EvidenceIn = "reply") -> list[Haystack]:
    """``count`` haystacks: even indexes the tuning half, odd ones the test half."""
    return [coding_haystack(seed, i, sessions=sessions, turns=turns, evidence_in=evidence_in) for i in range(count)]


def dump_haystacks(haystacks: list[Haystack], path: Path) -> None:
    """The generated data as JSON, to read it (sessions with their turns, questions with gold ids)."""
    def q(x: HaystackQuestion) -> dict[str, Any]:
        return {"question": x.question, "kind": x.group, "gold_turns": sorted(x.gold_turns),
                "gold_sessions": sorted(x.gold_sessions), "evidence": x.evidence, "now": (x.now or datetime.min).isoformat()}

    data = [{"name": h.name, "half": h.half, "now": h.now.isoformat(), "questions": [q(x) for x in h.questions],
             "sessions": [{"key": s.key, "timestamp": s.timestamp.isoformat(),
                           "turns": [{"id": t.source_id, "user": t.user, "assistant": t.assistant} for t in s.turns]}
                          for s in h.sessions]} for h in haystacks]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
