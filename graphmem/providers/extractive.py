"""Extractive summaries without an LLM: TextRank, cue-word findings, keyphrase topics.

Deterministic (no randomness; every ranking breaks ties by position) and offline. The summary is
the best sentences by PageRank over a TF-IDF cosine similarity graph of the conversation's prose
(user and assistant messages without code blocks); PageRank runs on networkx's Google matrix by
power iteration (``nx.pagerank`` itself needs scipy, which graphmem does not depend on).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInput
from ..models import ConversationSummary
from .summary_types import SummarizableTurn, SummaryResult, TurnForSummary, as_summary_turns
from .text import (
    FILE_EXTENSIONS,
    STOPWORDS,
    cue_count,
    dedupe,
    extract_paths,
    extract_paths_from_args,
    path_key,
    split_sentences,
    strip_code_blocks,
    word_tokens,
)

__all__ = ["EXTRACTIVE_MODEL", "ExtractiveSummarizer", "files_mentioned", "textrank_scores", "tools_used"]

EXTRACTIVE_MODEL = "textrank-v1"
"""The ``model`` of extractive results; bump it when the algorithm changes output."""


def _words(text: str) -> list[str]:
    return text.split()


_TOPIC_STOP = STOPWORDS | frozenset(
    _words(
        """
    file files code line lines thing way time times question answer result results value values
    example case part problem look looks looking check checked checking done work works working
    fichier fichiers ligne lignes exemple cas partie question réponse valeur valeurs
    """
    )
)
_PATHLIKE_RE = re.compile(
    r"\S*[/\\]\S*|\b[\w\-]+\.(?:" + "|".join(sorted(FILE_EXTENSIONS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_RAISED_RE = re.compile(r"\b\w*(?:Error|Exception|Exit)\b\s*:")
_ERROR_LINE_RE = re.compile(r"error|exception|fail|fatal|traceback|denied|not found|erreur|échec", re.IGNORECASE)


def _stem(word: str) -> str:
    """A light EN/FR plural folding used as the counting key (``embeddings`` ~ ``embedding``)."""
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 4 and word.endswith("x") and word.endswith(("aux", "eux")):
        return word[:-1]
    return word


def _content_tokens(sentence: str) -> list[str]:
    return [_stem(w) for w in word_tokens(sentence) if len(w) > 2 and w not in STOPWORDS]


def _pagerank(sim: np.ndarray, *, alpha: float = 0.85) -> list[float]:
    """PageRank of the weighted undirected graph ``sim`` (zero diagonal), from networkx's Google matrix.

    The stationary vector is solved for exactly (``x G = x``, ``sum(x) = 1``) instead of iterated.
    """
    import networkx as nx

    n = sim.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    rows, cols = np.nonzero(np.triu(sim, k=1))
    graph.add_weighted_edges_from((int(i), int(j), float(sim[i, j])) for i, j in zip(rows, cols, strict=True))
    google = np.asarray(nx.google_matrix(graph, alpha=alpha, weight="weight", nodelist=list(range(n))))
    system = google.T - np.eye(n)
    system[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    x = np.linalg.solve(system, rhs)
    return [round(float(v), 12) for v in x]


def textrank_scores(sentences: Sequence[str], *, max_candidates: int = 120) -> list[float]:
    """A TextRank score per sentence (higher = more central); 0 for sentences beyond the candidates.

    Sentences are TF-IDF vectors over content words (EN+FR stopwords removed, plurals folded);
    edges are cosine similarities. When there are more than ``max_candidates`` sentences, only
    those closest to the centroid enter the graph (the rest keep a small centroid-based score).
    """
    n = len(sentences)
    if n == 0:
        return []
    if n == 1:
        return [1.0]
    counts = [Counter(_content_tokens(s)) for s in sentences]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    if not df:
        return [1.0 / n] * n
    idf = {t: math.log((n + 1) / (d + 1)) + 1.0 for t, d in df.items()}
    weights: list[dict[str, float]] = []
    for c in counts:
        w = {t: (1.0 + math.log(k)) * idf[t] for t, k in c.items()}
        norm = math.sqrt(sum(v * v for v in w.values())) or 1.0
        weights.append({t: v / norm for t, v in w.items()})
    scores = [0.0] * n
    keep = list(range(n))
    if n > max_candidates:  # sparse centroid pre-selection, linear in the number of tokens
        centroid: dict[str, float] = {}
        for w in weights:
            for t, v in w.items():
                centroid[t] = centroid.get(t, 0.0) + v
        closeness = [round(sum(v * centroid[t] for t, v in w.items()), 9) for w in weights]
        order = sorted(range(n), key=lambda i: (-closeness[i], i))
        keep = sorted(order[:max_candidates])
        top = max(closeness) or 1.0
        for i in order[max_candidates:]:
            scores[i] = 1e-6 / n * max(0.0, closeness[i]) / top
    vocab: dict[str, int] = {}
    for i in keep:
        for t in weights[i]:
            vocab.setdefault(t, len(vocab))
    x = np.zeros((len(keep), max(1, len(vocab))), dtype=np.float64)
    for row, i in enumerate(keep):
        for t, v in weights[i].items():
            x[row, vocab[t]] = v
    sim = x @ x.T
    np.fill_diagonal(sim, 0.0)
    sim[sim < 0.02] = 0.0
    for i, score in zip(keep, _pagerank(sim), strict=True):
        scores[i] = score
    return scores


@dataclass(frozen=True)
class _Sentence:
    text: str
    position: int


class ExtractiveSummarizer:
    """Summaries with no LLM and no network; same input, same output. Works for English and French.

    * ``summary``: the ``max_sentences`` best TextRank sentences that fit in ``max_chars``, in order;
    * ``keyFindings``: the best sentences with decision/finding cues (fixed, error, because,
      decided, found... corrigé, erreur, parce que, décidé, trouvé...) and failed tool calls;
    * ``filesMentioned``: paths in messages and tool arguments first, then in tool results;
    * ``toolsUsed``: tool names in order of first use;
    * ``topics``: frequent content words and word pairs (EN+FR stopwords removed).
    """

    method = "extractive"

    def __init__(
        self,
        *,
        max_sentences: int = 3,
        max_chars: int = 600,
        max_findings: int = 5,
        max_topics: int = 6,
        max_files: int = 50,
        max_candidates: int = 120,
        min_sentence_chars: int = 20,
        max_sentence_chars: int = 300,
        max_message_chars: int = 50_000,
    ) -> None:
        """``max_message_chars`` bounds the prose read from one message (its head) for sentences and
        topics; file paths are looked for in the whole message.
        """
        if max_sentences < 1 or max_chars < 20:
            raise ValueError("max_sentences must be >= 1 and max_chars >= 20")
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.max_findings = max_findings
        self.max_topics = max_topics
        self.max_files = max_files
        self.max_candidates = max_candidates
        self.min_sentence_chars = min_sentence_chars
        self.max_sentence_chars = max_sentence_chars
        self.max_message_chars = max_message_chars

    @property
    def model(self) -> str:
        return EXTRACTIVE_MODEL

    # ------------------------------------------------------------------ sentences

    def _clip(self, sentence: str) -> str:
        sentence = " ".join(sentence.split())
        if len(sentence) <= self.max_sentence_chars:
            return sentence
        cut = sentence[: self.max_sentence_chars - 1]
        space = cut.rfind(" ")
        if space > self.max_sentence_chars // 2:
            cut = cut[:space]
        return cut.rstrip(" ,;:") + "…"

    def _is_prose(self, sentence: str) -> bool:
        if len(sentence) < self.min_sentence_chars:
            return False
        letters = sum(1 for ch in sentence if ch.isalpha())
        if letters < 0.55 * len(sentence.replace(" ", "")):
            return False
        return len(word_tokens(sentence)) >= 3

    def _sentences(self, texts: Sequence[str]) -> list[_Sentence]:
        raw: list[str] = []
        for text in texts:
            raw.extend(split_sentences(strip_code_blocks(text)))
        good = [s for s in raw if self._is_prose(s)]
        if not good:  # short exchanges ("ok", "done"): keep any non-empty fragment
            good = [s for s in raw if word_tokens(s)]
        clipped = dedupe((self._clip(s) for s in good), key=lambda s: " ".join(word_tokens(s)))
        return [_Sentence(s, i) for i, s in enumerate(clipped)]

    def _compose(self, ranked: Sequence[_Sentence]) -> str:
        chosen: list[_Sentence] = []
        used = 0
        for s in ranked:
            if len(chosen) >= self.max_sentences:
                break
            extra = len(s.text) + (1 if chosen else 0)
            if used + extra <= self.max_chars:
                chosen.append(s)
                used += extra
        if not chosen and ranked:
            text = ranked[0].text[: self.max_chars - 1]
            space = text.rfind(" ")
            if space > self.max_chars // 2:
                text = text[:space]
            return text.rstrip(" ,;:") + "…"
        return " ".join(s.text for s in sorted(chosen, key=lambda s: s.position))

    @staticmethod
    def _rank(sentences: Sequence[_Sentence], scores: Sequence[float]) -> list[_Sentence]:
        return [s for s, _ in sorted(zip(sentences, scores, strict=True), key=lambda p: (-p[1], p[0].position))]

    def _findings(self, sentences: Sequence[_Sentence], scores: Sequence[float], extra: Sequence[str]) -> list[str]:
        if self.max_findings <= 0:
            return []
        cued = [
            (score * (1.0 + 0.5 * min(cues, 3)), s)
            for s, score in zip(sentences, scores, strict=True)
            if (cues := cue_count(s.text)) > 0
        ]
        cued.sort(key=lambda p: (-round(p[0], 12), p[1].position))
        room = self.max_findings - min(len(extra), 1 if cued else self.max_findings)
        picked = sorted((s for _, s in cued[: max(0, room)]), key=lambda s: s.position)
        out = [s.text for s in picked]
        for e in extra:
            if len(out) >= self.max_findings:
                break
            out.append(e)
        return dedupe(out)

    # ------------------------------------------------------------------ topics

    def _topics(self, texts: Sequence[str], seed: Sequence[str] = ()) -> list[str]:
        """Frequent content words and adjacent pairs; ``seed`` topics (roll-ups) rank first, by frequency."""
        if self.max_topics <= 0:
            return []
        uni: Counter[str] = Counter()
        bi: Counter[tuple[str, str]] = Counter()
        first: dict[str | tuple[str, str], int] = {}
        surface: dict[str, Counter[str]] = {}
        pos = 0
        for text in texts:
            prose = _PATHLIKE_RE.sub(" . ", strip_code_blocks(text))
            for sentence in split_sentences(prose):
                run: list[str] = []
                for chunk in re.split(r"[,;:()\[\]\"'«»“”]", sentence):
                    run = []
                    for w in word_tokens(chunk):
                        pos += 1
                        if len(w) < 3 or len(w) > 30 or w in _TOPIC_STOP or w.replace("-", "").isdigit():
                            run = []
                            continue
                        key = _stem(w)
                        uni[key] += 1
                        first.setdefault(key, pos)
                        surface.setdefault(key, Counter())[w] += 1
                        if run:
                            pair = (run[-1], key)
                            bi[pair] += 1
                            first.setdefault(pair, pos)
                        run.append(key)
        seeds: Counter[str] = Counter()
        seed_first: dict[str, int] = {}
        seed_surface: dict[str, str] = {}
        for i, topic in enumerate(seed):
            k = " ".join(topic.lower().split())
            if not k:
                continue
            seeds[k] += 1
            seed_first.setdefault(k, i)
            seed_surface.setdefault(k, topic.strip())

        def name(key: str) -> str:
            forms = surface.get(key)
            if not forms:
                return key
            return sorted(forms.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]

        cands: list[tuple[float, int, str, frozenset[str]]] = []
        for k, c in seeds.items():
            cands.append((3.0 * c + 1.0, -1_000_000 + seed_first[k], seed_surface[k], frozenset(k.split())))
        for pair, c in bi.items():
            if c >= 2 and pair[0] != pair[1]:
                cands.append((2.0 * c, first[pair], f"{name(pair[0])} {name(pair[1])}", frozenset(pair)))
        for key, c in uni.items():
            cands.append((float(c), first[key], name(key), frozenset((key,))))
        cands.sort(key=lambda t: (-t[0], t[1], t[2]))
        out: list[str] = []
        covered: list[frozenset[str]] = []
        for _, _, label, keys in cands:
            if any(keys <= k or k <= keys for k in covered):
                continue
            out.append(label)
            covered.append(keys)
            if len(out) >= self.max_topics:
                break
        return out

    # ------------------------------------------------------------------ API

    def summarize(self, turns: Sequence[SummarizableTurn]) -> SummaryResult:
        """Summarize consecutive turns (oldest first); :class:`InvalidInput` when there are none."""
        items: list[TurnForSummary] = as_summary_turns(turns)
        if not items:
            raise InvalidInput("nothing to summarize: no turns")
        prose = [m[: self.max_message_chars] for t in items for m in (t.user_message, t.assistant_message)]
        failures = [_failure_line(c.name, c.result) for t in items for c in t.tool_calls if c.success is False]
        sentences = self._sentences(prose)
        scores = textrank_scores([s.text for s in sentences], max_candidates=self.max_candidates)
        summary = ConversationSummary(
            summary=self._compose(self._rank(sentences, scores)),
            key_findings=self._findings(sentences, scores, dedupe(failures)),
            files_mentioned=files_mentioned(items)[: self.max_files],
            tools_used=tools_used(items),
            topics=self._topics(prose),
        )
        return SummaryResult(summary=summary, method="extractive", model=EXTRACTIVE_MODEL)

    def summarize_summaries(self, summaries: Sequence[ConversationSummary]) -> SummaryResult:
        """Roll summaries up: TextRank over their sentences and findings, unions of files and tools."""
        if not summaries:
            raise InvalidInput("nothing to summarize: no summaries")
        texts = [s.summary[: self.max_message_chars] for s in summaries]
        sentences = self._sentences(texts)
        findings = dedupe(
            (" ".join(f.split()) for s in summaries for f in s.key_findings if f.strip()),
            key=lambda f: " ".join(word_tokens(f)) or f,
        )
        nodes = [s.text for s in sentences] + findings
        scores = textrank_scores(nodes, max_candidates=self.max_candidates)
        sent_scores = scores[: len(sentences)]
        finding_scores = scores[len(sentences) :]
        ranked_findings = sorted(
            range(len(findings)),
            key=lambda i: (-round(finding_scores[i] * (1.0 + 0.5 * min(cue_count(findings[i]), 3)), 12), i),
        )
        kept = sorted(ranked_findings[: max(0, self.max_findings)])
        summary = ConversationSummary(
            summary=self._compose(self._rank(sentences, sent_scores)),
            key_findings=[findings[i] for i in kept],
            files_mentioned=_dedupe_paths([f for s in summaries for f in s.files_mentioned])[: self.max_files],
            tools_used=dedupe(t for s in summaries for t in s.tools_used),
            topics=self._topics(texts, seed=[t for s in summaries for t in s.topics]),
        )
        return SummaryResult(summary=summary, method="extractive", model=EXTRACTIVE_MODEL)

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer(max_sentences={self.max_sentences}, max_chars={self.max_chars})"


def files_mentioned(turns: Sequence[SummarizableTurn]) -> list[str]:
    """Paths in the messages and tool arguments (in order), then those only seen in tool results."""
    primary: list[str] = []
    secondary: list[str] = []
    for t in as_summary_turns(turns):
        primary.extend(extract_paths(t.user_message))
        for call in t.tool_calls:
            primary.extend(extract_paths_from_args(call.args))
            if call.result:
                secondary.extend(extract_paths(call.result[:20_000]))
        primary.extend(extract_paths(t.assistant_message))
    return _dedupe_paths(primary + secondary)


def tools_used(turns: Sequence[SummarizableTurn]) -> list[str]:
    """Names of the tools called, in order of first use."""
    return dedupe(c.name for t in as_summary_turns(turns) for c in t.tool_calls if c.name)


def _dedupe_paths(paths: Sequence[str]) -> list[str]:
    return dedupe(paths, key=path_key)


def _failure_line(name: str, result: str | None) -> str:
    """``"<tool> failed: <first error-looking line of the result>"`` (clipped to 200 characters)."""
    lines = [ln.strip() for ln in (result or "").splitlines() if ln.strip()]
    raised = [ln for ln in lines if _RAISED_RE.search(ln)]
    if raised:
        line = raised[-1]
    else:
        line = next((ln for ln in lines if _ERROR_LINE_RE.search(ln) and not ln.startswith("Traceback")), "")
        line = line or (lines[-1] if lines else "")
    line = " ".join(line.split())
    if len(line) > 200:
        line = line[:199] + "…"
    return f"{name} failed: {line}" if line else f"{name} failed"
