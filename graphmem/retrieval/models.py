"""What retrieval returns: search hits, search results and the pre-call context block."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.alias_generators import to_camel

from ..arguments import count, score
from ..embedding.pending import LONG_TURN_CHARS
from ..errors import InvalidInput, quoted
from .lucene import DEFAULT_FIELD_WEIGHTS

__all__ = [
    "ContextBlock",
    "ContextConfig",
    "ContextTurn",
    "HitKind",
    "RetrievalConfig",
    "SearchHit",
    "SearchMode",
    "SearchResult",
]

SearchMode = Literal["hybrid", "semantic", "text"]
HitKind = Literal["turn", "summary"]


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class SearchHit(_Model):
    """One turn (level 0) or summary (level >= 1) found by :meth:`GraphMemory.search`."""

    kind: HitKind
    id: str
    level: int
    """0 for a turn, the summary level otherwise."""
    score: float
    """The ranking score: fused RRF score (hybrid), cosine similarity (semantic), BM25 (text)."""
    relevance: float
    """``score`` on a 0..1 scale (cosine for semantic; fused score / best possible for hybrid;
    BM25 / best BM25 of the result for text), for display ("Relevance: 72%")."""
    vector_score: float | None = None
    """Cosine similarity (-1..1) when the vector side returned the hit."""
    text_score: float | None = None
    """Lucene BM25 score when the full-text side returned the hit."""
    vector_rank: int | None = None
    """1-based rank among the vector candidates."""
    text_rank: int | None = None
    """1-based rank among the full-text candidates."""
    graph_rank: int | None = None
    """1-based rank among the graph candidates (reached from the best hits; ``graph_weight`` > 0)."""
    session_id: str
    cwd: str
    project_path: str
    timestamp: datetime | None = None
    relative_time: str = ""
    """``"3 days ago"`` / ``"il y a 3 jours"`` (locale of the search)."""
    # turns
    index: int | None = None
    user_message: str | None = None
    assistant_message: str | None = None
    tools: list[str] = Field(default_factory=list)
    # summaries
    text: str | None = None
    key_findings: list[str] = Field(default_factory=list)
    files_mentioned: list[str] = Field(default_factory=list)
    tools_used: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    truncated: bool = False
    """A message or summary text was cut to the search's ``max_chars``."""

    _embedding: list[float] | None = PrivateAttr(default=None)

    @property
    def embedding(self) -> list[float] | None:
        """The stored vector, when the search was asked for it (never serialised)."""
        return self._embedding

    def body(self) -> str:
        """The hit's text: ``User: ... / Assistant: ...`` for a turn, the summary text otherwise."""
        if self.kind == "turn":
            return f"User: {self.user_message or ''}\nAssistant: {self.assistant_message or ''}"
        return self.text or ""


class SearchResult(_Model):
    """Hits (best first) plus how they were found. It behaves as the sequence of its hits:
    ``len(res)``, ``for hit in res``, ``res[0]``, ``res[:3]``, and ``if res`` (true when there is a
    hit); the other attributes (``warnings``, ``effective_mode``, ...) say how they were found."""

    query: str
    mode: SearchMode
    """The mode asked for."""
    effective_mode: SearchMode
    """The mode actually run (``text`` when no embedder could embed the query)."""
    scope: str
    levels: list[int]
    hits: list[SearchHit] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    strategy: dict[str, Any] = Field(default_factory=dict)
    """How each source ran: vector ``exact`` / ``index-filtered`` / ``index-overfetch`` (+ fetch
    sizes), full-text fetch size, candidate counts."""
    timings_ms: dict[str, float] = Field(default_factory=dict)
    time_window: dict[str, Any] | None = None
    """The time window the query named and the ranking favoured (``phrase``, ISO ``start`` and
    ``end``, and ``anchor``: what it was read from: ``query date``, ``now``, ``last turn``, ``date``
    for a day written with its year, or ``event`` with the ``event_turn`` that tells the event it
    starts or ends at); None when the query names none."""
    parts: list[str] | None = None
    """The two events a question compares ("which came first, A or B"), each also searched on its
    own: the hits then interleave the whole question's ranking and each event's. None otherwise."""

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False, **kwargs)

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[SearchHit]:  # type: ignore[override]  # the hits, not the fields
        return iter(self.hits)

    @overload
    def __getitem__(self, index: int) -> SearchHit: ...

    @overload
    def __getitem__(self, index: slice) -> list[SearchHit]: ...

    def __getitem__(self, index: int | slice) -> SearchHit | list[SearchHit]:
        return self.hits[index]

    def __bool__(self) -> bool:
        return bool(self.hits)


@dataclass(frozen=True)
class RetrievalConfig:
    """Every knob of the search. Defaults = the hybrid measured best on LoCoMo in Neo4j with the
    local USE embedder (``benchmarks/results/locomo.md``): ``english`` analyzer (schema 0030),
    question words dropped from the full-text query, ``contextText`` (±2 neighbouring turns, written
    by ``embed_pending``) boosted 0.7, the whole-session document prior (``session_weight`` 0.5), turn
    vectors averaged with their neighbours' (``ctxEmbedding``), CombSUM fusion 0.7 text / 0.3 vector:
    hybrid R@10 75.9 (74.7 without the session prior). Equal-weight RRF with USE is far worse. A time
    the query names ("last weekend", "in March 2023") lifts the candidates of that window
    (``time_boost``); session diversity (``session_decay``) is off: it lowered every measured set.
    Long turns (user + assistant over ``long_turn_chars``, a coding assistant's replies) take neither
    their neighbours' context nor the session prior: both helped short chat turns and crowded the
    top of the list with one session's long replies. Their full-text score is over request and
    reply joined as one document, a long request adding its own field's score
    (``join_long_turns``, ``long_request_weight``), and their vector share is half
    (``long_turn_vector_weight``)."""

    fusion: Literal["rrf", "combsum"] = "combsum"
    """``rrf``: weighted Reciprocal Rank Fusion; ``combsum``: weighted sum of min-max normalised
    scores (uses the score gaps RRF ignores)."""
    rrf_k: int = 60
    vector_weight: float = 0.3
    text_weight: float = 0.7
    vector_min_span: float = 0.0
    """CombSUM: the vector side's cosines are divided by at least this span (best - worst of its
    candidates), so candidates the embedder places in a narrow band (long turns: a median spread of
    ~0.07 with USE, ~0.14 on short chat turns) weigh less than clear matches (0 = plain min-max).
    Off: on fresh loads it changed next to nothing (``benchmarks/long_turns/FINDINGS.md``,
    sections 6 and 7)."""
    vector_depth: int = 50
    """Candidates asked of the vector side, for turns and for summaries each."""
    text_depth: int = 50
    """Candidates asked of the full-text side."""
    field_weights: dict[str, float] = field(default_factory=lambda: {**DEFAULT_FIELD_WEIGHTS, "contextText": 0.7})
    """Full-text fields of the ``memory_search`` index and their boosts (``contextText`` = the
    neighbouring turns, document expansion; 0 = not queried)."""
    session_weight: float = 0.5
    """Whole-session lexical prior: each full-text candidate's BM25 score gets ``session_weight`` x the
    BM25 score of its session's document (``sessionText``, index ``session_search``) for the same terms
    (0 = off)."""
    session_depth: int = 100
    """Session documents asked of the ``session_search`` index (within the scope)."""
    long_turn_chars: int = LONG_TURN_CHARS
    """Turns longer than this (user message + assistant reply) get no whole-session prior: a long
    turn is retrieved on its own words (the embedding pass likewise gives it no neighbour context,
    ``graphmem.embedding.LONG_TURN_CHARS``; 0 = every turn gets the prior)."""
    long_turn_user_weight: float = 0.5
    """Scored field by field (a long turn not joined: written before the joined documents, or with
    ``join_long_turns`` off), a long turn whose request is short (under ``short_request_chars``: a question or a command)
    counts that request field (``userMessage``) this many times its field weight in the full-text
    score (1 = as every other turn; ``retrieval.longturns``). Lucene normalises each field by its own
    length, so a short request that repeats the query's words would otherwise outscore the long
    reply that answers it; but a short message can also be what the user told (a personal
    assistant's history), so it keeps half. 0.5 against 0.3 (the first value, chosen on the coding
    haystacks' tuning halves), paired over four long-turn loads: +25 / −11 questions at 5 and
    +29 / −9 at 10, carried by the assistant-shaped LoCoMo haystacks (+20 / −5, +21 / −4), the
    coding loads and the mixed one within ±3; short turns, so LoCoMo and its haystacks, are
    untouched (``benchmarks/long_turns/FINDINGS.md``, sections 4 and 8)."""
    long_turn_vector_weight: float = 0.5
    """CombSUM: a long turn's vector share counts this many times (1 = as short turns). One vector
    averages a long reply's words, and its cosines hardly tell long turns apart; half the weight
    leaves them more to their words. Short turns are untouched. The measurements are in
    ``benchmarks/long_turns/FINDINGS.md``, section 7."""
    short_request_chars: int = 150
    """Requests of long turns shorter than this are a question or a command: scored field by field
    they take ``long_turn_user_weight``; joined, they add nothing of their own. Longer ones (a request
    that tells something: a decision, a preference, a fact) keep their full weight, and add
    ``long_request_weight`` times their own field to a joined turn."""
    long_turn_field_tie: float = 1.0
    """Scored field by field, how the request and reply full-text scores of a long turn whose request
    is short combine: the
    better of the two plus this share of the other (1 = their sum, as for every other turn;
    ``retrieval.longturns``). Off: 0.3 won on coding histories with the evidence in the replies
    (+5 / −0 questions at 5) and lost on those with the evidence in the requests (+3 / −7 at 10);
    applied to every long turn it lost 14 questions at 5 there (``benchmarks/long_turns/FINDINGS.md``,
    section 8)."""
    join_long_turns: bool = True
    """Score a long turn the embedding pass has joined (``turnText``: its request and reply as one
    document, index ``turn_search``) as that one document, not field by field
    (``retrieval.longturns``): BM25 over the whole turn with one length norm, as plain BM25 reads a
    turn. Field by field, a short message the user told drowned under a reply that echoes it, and a
    bare question that repeats the query's words outscored the reply that answers it. Against field
    by field, in one run per load: +124 / −24 questions at 5 on the assistant-shaped LoCoMo
    haystacks, +16 / −8 and +20 / −8 on the coding histories (evidence in the replies, in the
    requests), the mixed load level (``benchmarks/long_turns/FINDINGS.md``, section 9). False: every
    long turn is scored field by field."""
    long_request_weight: float = 1.0
    """A joined long turn whose request is at least ``short_request_chars`` long (a request that
    tells something) adds its request field's own score this many times: that field is normalised by
    the request's length alone, so what the user told weighs more than the reply around it (0 = the
    joined document alone; 0.5 measured level with 1, 0 lower)."""
    join_short_turns: bool = True
    """Score a short turn the embedding pass has joined (``shortTurnText``, index ``turn_search``) as
    one document too: BM25 over its request and reply with one length norm, plus its neighbours'
    ``contextText`` at that field's weight, in one query (False: field by field in ``memory_search``).
    Short and long turns are two fields of the index, so each keeps its own length statistics, apart
    from the long turns' too. Against field by field, in one run per load: +51 / −19 questions at 5
    on the LoCoMo haystacks in a store that also holds long turns (+20 / −10 on a server of chat
    turns only), +25 / −11 on the mixed load, LoCoMo R@10 78.3 against 76.0 there (level on a
    fresh server); long turns unchanged (``benchmarks/long_turns/FINDINGS.md``, section 10)."""
    context_cap: float | None = 1.0
    """A joined short turn's neighbours' ``contextText`` adds at most this many times its field
    weight times the sum of those neighbours' own full-text scores (None = no cap;
    ``retrieval.longturns``). BM25 normalises a context by its length, so the short context of a
    session's first or last turn could outscore the very turn it was copied from."""
    drop_query_stopwords: bool = True
    """Drop question words and filler from the full-text query (never every term)."""
    proximity_weight: float = 0.25
    """Each two consecutive query words (question words dropped) also score as a phrase within
    ``proximity_slop`` positions, in either order, at this times each field's weight (0 = off): a
    turn that holds the words together outranks one that has them apart. Against off, paired on
    eight loads, 0.25 won 58 questions and lost 33 at 10 (sign test p 0.01) and was level at 5
    (+62 / -48), no half losing significantly; on the assistant-shaped haystacks +9 / -1 at 5 and
    +10 / -2 at 10 (``benchmarks/long_turns/FINDINGS.md``, section 12). Costs about x1.07 a hybrid
    search."""
    proximity_slop: int = 8
    """How far apart (in positions, the moves to bring them together) two query words may stand for
    ``proximity_weight``."""
    answer_lift: float = 1.0
    """When one of the best ``answer_seeds`` turns ends on a question about the query's words (its
    last message holds a sentence ending in ``?`` with two of them), the turn after it gains this x
    its score and ranks right after it on a tie: in a conversation the answer comes in the next
    message (hybrid and text searches; ``retrieval.answers``; 0 = off)."""
    answer_seeds: int = 10
    """How many of the best turns may lift the turn that answers them (``answer_lift``)."""
    exact_scan_max: int = 2000
    """Scopes holding at most this many turns + summaries are scanned exactly with
    ``vector.similarity.cosine`` instead of the approximate vector indexes (servers without in-index
    filtering, 5.26: there the index must over-fetch by total / scope size)."""
    exact_scan_max_filtered: int = 300
    """The same threshold where the indexes filter by scope themselves (2026.01+): measured at 100k
    nodes (`graphmem bench retrieval`), the exact scan of a 1,000-node project took 36 ms against
    22 ms for the filtered index, and a 100-node session 15 ms against 19 ms."""
    overfetch: float = 2.0
    """Without in-index filtering (5.26): fetch ``k * (total / scope size) * overfetch`` neighbours."""
    max_fetch: int = 20_000
    """Above this over-fetch the exact scan is used instead (correct, bounded)."""
    count_cache_seconds: float = 30.0
    """Scope sizes (used only to choose a strategy) are cached this long per process."""
    max_chars: int = 4000
    """Each message / summary text in a hit is cut to this many characters."""
    session_decay: float = 1.0
    """Diversity: a candidate's fused score is multiplied by this for every better hit of its session
    already in the top k beyond the first ``session_free`` (1.0 = off; ``retrieval.diversity``)."""
    session_free: int = 1
    """Hits of one session that keep their score before ``session_decay`` applies."""
    time_boost: float = 0.8
    """Time-aware retrieval: when the query names a time ("last weekend", "in March", "il y a 3
    jours", relative to the search's ``now``), candidates in that window gain this x the best score
    (0 = off; ``retrieval.timewindow``). 0.6 raised every metric on both halves of LoCoMo and of the
    LoCoMo haystacks; 0.8 then raised the coding histories (+8 / −0 questions at all@5, both halves,
    the temporal ones: hybrid's fused scores spread wider than raw BM25's, so 0.6 left in-window
    turns under decoys of other weeks) and LoCoMo's R@5, and held on the haystacks, the
    assistant-shaped haystacks and the two-event questions; 1.0 lost at all@10 on the haystacks
    (``benchmarks/time_windows/FINDINGS.md``)."""
    calendar_dates: bool = True
    """Read calendar dates in queries as time windows: "on October 13, 2023", "the week before 3
    August", "as of 1 May" (``retrieval.datewindow``; False = only relative expressions)."""
    calendar_periods: bool = True
    """Read seasons, parts of a month, month ranges and spans from or up to a month as time windows:
    "last summer", "the beginning of November 2022", "mid-August", "between August and November
    2023", "since March", "since the start of the year" (``retrieval.periodwindow``)."""
    event_boost: float = 0.3
    """When the query names no time but an event ("before I moved", "after the wedding",
    ``retrieval.eventwindow``), candidates on that side of the turn that tells the event gain this x
    the best score (0 = off)."""
    when_boost: float = 0.2
    """A question that asks when ("when did ...", "what year ...", "how long ago ...", "quand ...",
    ``retrieval.tellswhen``): candidates whose text tells a time ("yesterday", "last week", "in
    March", a date) gain this x the best score (0 = off). 0.2 was chosen on the tuning halves of
    LoCoMo, the LoCoMo haystacks and the mixed benchmark (``benchmarks/time_windows/FINDINGS.md``)."""
    query_parts: bool = True
    """Search a question that compares two events ("how many days between the day I A and the day I
    B", "which came first, A or B") once more per event, and interleave the three rankings
    (``retrieval.queryparts``; not when the query names a calendar or relative time window)."""
    part_rounds: int = 0
    """How many hits of each event's search are interleaved with the whole question's before the
    rest of the whole question's ranking (0 = all of them, in turn). All of them: on the two-event
    questions of ``graphmem bench two-events`` it beat 2 (the first value) at 10 in two sweeps,
    +18 / −6 and +22 / −5 questions, both halves, and was level at 5 (+3 / −1, +2 / −0); 1 and 3
    were no better (``benchmarks/long_turns/FINDINGS.md``, section 10)."""
    anchor_to_last_turn: bool = True
    """When a search is given no ``now`` and its scope's last turn is older than the start of the
    window the query names (an imported archive, a memory left idle), read the window as if asked
    the day after that last turn instead of at the current time (``SearchResult.time_window["anchor"]`` says which;
    False = always the current time)."""
    rerank_pool: int = 100
    """Fused candidates the re-ranking (diversity, time window) chooses the top k from."""
    graph_weight: float = 0.2
    """The graph as a third source (hybrid mode): candidates reached from the best fused hits through
    the memory's edges (``retrieval.graph``) are fused with this weight (0 = off). 0.2 raised turn
    all@5 and all@10 on the tuning and test halves of the LoCoMo haystacks and of the coding
    haystacks, worker summaries included, and LoCoMo's R@5 and R@10 (0.4 lowered the coding tuning
    half's all@5; ``benchmarks/graph_source/FINDINGS.md``)."""
    graph_seeds: int = 10
    """Best fused candidates of the vector and full-text sides the graph source starts from."""
    graph_summary_levels: tuple[int, ...] = (1, 2, 3)
    """Summary levels a turn-only search (levels ``(0,)``) also asks the full-text index for, as seeds
    of the graph source only: the turns the best of them cover climb (empty = none)."""
    graph_depth: int = 50
    """Graph candidates kept (best first)."""
    graph_per_seed: int = 20
    """Candidates per seed and edge kind (the most recent first)."""
    graph_edge_weights: dict[str, float] = field(
        default_factory=lambda: {"next": 1.0, "covers": 1.0, "file": 0.0, "subject": 0.5, "fact": 3.0})
    """Weight of each edge kind: ``next`` (the turns around a turn), ``covers`` (what a summary
    covers), ``file`` (turns that touched the same file), ``subject`` (turns behind facts about the
    same subject), ``fact`` (the turns the facts nearest to the query were extracted from). ``file``
    is off: on coding histories whose turns record the files they edited it lowered all@5 on both
    halves (turns editing one file often answer other questions). ``fact`` outweighs the others
    because a fact that matches the query points at one turn, where a seed's neighbours are only
    near it (``benchmarks/graph_source/FINDINGS.md``)."""
    graph_fact_seeds: int = 10
    """Facts nearest to the query (vector search) whose source turns the ``fact`` edge lifts (0 = none)."""
    graph_fact_fetch: int = 200
    """Nearest facts read from the fact index, over every scope, before those of other scopes are dropped
    (when fewer than ``graph_fact_seeds`` remain, a scope of at most ``exact_scan_max`` turns has its
    facts scanned exactly instead)."""


@dataclass(frozen=True)
class ContextConfig:
    """Knobs of :meth:`GraphMemory.build_context` (the context block's default limits)."""

    recent_limit: int = 3
    recent_max_chars: int = 5000
    turn_hits: int = 5
    summary_hits: int = 5
    level1_limit: int = 10
    scope: Literal["session", "directory", "project", "everything"] = "project"
    """Where relevant past context is searched, relative to the session (its project by default)."""
    levels: tuple[int, ...] = (0, 1, 2, 3)
    mode: SearchMode = "hybrid"
    min_score: float | None = None
    dedup_threshold: float = 0.85
    """Hits whose cosine similarity to a better hit (or a recent turn) exceeds this collapse."""
    budget_chars: int = 12_000
    """Upper bound of the rendered block, in characters."""
    item_max_chars: int = 1500
    """Each past turn / summary is cut to this many characters in the block."""
    locale: str = "en"
    timezone: str = "UTC"
    """The time zone of the absolute times shown (the dates of facts)."""
    facts: bool = True
    """Join the fact memory's pre-call injection (identity, important, recent and similar facts)."""

    def __post_init__(self) -> None:
        """Each knob checked when the config is made: :class:`InvalidInput` naming the first bad one."""
        for name in ("recent_limit", "recent_max_chars", "turn_hits", "summary_hits", "level1_limit",
                     "budget_chars", "item_max_chars"):
            count(getattr(self, name), name, minimum=0)
        if self.scope not in ("session", "directory", "project", "everything"):
            raise InvalidInput(f"scope must be session, directory, project or everything, not {quoted(self.scope)}")
        if self.mode not in ("hybrid", "semantic", "text"):
            raise InvalidInput(f"mode must be hybrid, semantic or text, not {quoted(self.mode)}")
        if self.min_score is not None:
            score(self.min_score, "min_score")
        score(self.dedup_threshold, "dedup_threshold", low=-1.0, high=1.0)
        if not isinstance(self.locale, str):
            raise InvalidInput(f"locale must be a string, not {type(self.locale).__name__}")
        if not isinstance(self.facts, bool):
            raise InvalidInput(f"facts must be True or False, not {type(self.facts).__name__}")
        try:
            ZoneInfo(self.timezone)
        except (ValueError, TypeError, ZoneInfoNotFoundError):
            raise InvalidInput(f"timezone must be an IANA zone name such as 'Europe/Paris', not {quoted(self.timezone)}") from None


class ContextTurn(_Model):
    """A recent raw turn of the current session."""

    id: str
    index: int
    user_message: str
    assistant_message: str
    tools: list[str] = Field(default_factory=list)
    timestamp: datetime | None = None
    relative_time: str = ""


class ContextBlock(_Model):
    """The enriched context passed to the agent before each call."""

    session_id: str
    message: str
    recent_turns: list[ContextTurn] = Field(default_factory=list)
    relevant_turns: list[SearchHit] = Field(default_factory=list)
    relevant_summaries: list[SearchHit] = Field(default_factory=list)
    level1_summaries: list[SearchHit] = Field(default_factory=list)
    facts: list[dict[str, Any]] = Field(default_factory=list)
    """Facts injected before the call (content, type, importance, reason, score, id)."""
    facts_log_id: str | None = None
    """The ``(:Retrieval)`` node that logs this injection."""
    notes: list[dict[str, Any]] = Field(default_factory=list)
    """Notes of the vault the block carries: the fixed ones, then the most relevant (graphmem.notes)."""
    text: str = ""
    """The rendered block (its markdown sections), at most ``budget_chars``."""
    chars: int = 0
    budget_chars: int = 0
    dropped: dict[str, int] = Field(default_factory=dict)
    """Items left out, by reason (``recent-repeat``, ``near-duplicate``, ``duplicate``, ``budget``)."""
    warnings: list[str] = Field(default_factory=list)
    search: dict[str, Any] = Field(default_factory=dict)
    """The search's effective mode, strategy and timings."""
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False, **kwargs)
