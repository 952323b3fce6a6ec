"""What ``graphmem bench growth`` grows: its configuration and the synthetic sessions it loads."""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from graphmem.memory import GraphMemory

from ..statements import dev_db

__all__ = ["DEDICATED_HEAP", "DEDICATED_PAGECACHE", "DIM", "FULL_SIZES", "L1_SPAN", "MODEL", "NODES_PER_SESSION", "QUICK_SIZES", "SESSIONS_PER_PROJECT", "TOPICS", "TURNS_PER_SESSION", "Dataset", "GrowthConfig", "Log", "Synth", "grow"]


DIM = 512
TOPICS = 200
TURNS_PER_SESSION = 90
L1_SPAN = 10  # turns per level-1 summary
NODES_PER_SESSION = TURNS_PER_SESSION + TURNS_PER_SESSION // L1_SPAN + 1
SESSIONS_PER_PROJECT = 25
MODEL = "synthetic-512"
DEDICATED_HEAP = "2g"
DEDICATED_PAGECACHE = "2g"
FULL_SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 5_000)

Log = Callable[[str], None]


@dataclass
class GrowthConfig:
    """What to measure (defaults: the full run)."""

    sizes: tuple[int, ...] = FULL_SIZES
    store_samples: int = 200
    search_samples: int = 150  # per scope
    context_samples: int = 100
    warmup: int = 20
    worker_at: int = 10_000  # summarizer + worker throughput at the first size >= this
    worker_turns: int = 400
    summarizer_turns: int = 500
    batch_sessions: int = 10  # sessions (of 100 nodes) per load statement
    worker_embeds: bool = True  # False: the worker summarises without an embedder
    seed: int = 7
    idle_wait_seconds: float = 900.0  # after each load, wait up to this long for the server to go idle


# ----------------------------------------------------------------------------------------------
# synthetic data


class Synth:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        sy = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "ja", "qu"]
        words = list(dict.fromkeys("".join(self.rng.choice(sy) for _ in range(self.rng.randint(2, 4)))
                                   for _ in range(8000)))
        self.vocab = np.array(words, dtype=object)
        w = 1 / (np.arange(len(words)) + 1) ** 0.9
        self.p = w / w.sum()
        c = self.np.normal(size=(TOPICS, DIM))
        self.centroids = c / np.linalg.norm(c, axis=1, keepdims=True)

    def texts(self, topics: Sequence[int], n_words: int) -> list[str]:
        """One pseudo-word text per topic: Zipf-distributed common words plus topic-specific ones."""
        common = self.np.choice(len(self.vocab), size=(len(topics), n_words), p=self.p)
        own_n = max(2, n_words // 6)
        own = (np.asarray(topics)[:, None] * 37 + self.np.integers(0, 5, size=(len(topics), own_n))) % len(self.vocab)
        idx = np.concatenate([common, own], axis=1)
        self.np.permuted(idx, axis=1, out=idx)
        return [" ".join(row) for row in self.vocab[idx].tolist()]

    def vectors(self, topics: Sequence[int], noise: float = 0.9) -> list[list[float]]:
        v = self.centroids[np.asarray(topics)] + noise * self.np.normal(size=(len(topics), DIM)) / np.sqrt(DIM)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        out: list[list[float]] = v.astype(np.float32).tolist()
        return out


@dataclass
class Dataset:
    ns: str
    sessions: list[tuple[str, int, int]] = field(default_factory=list)  # (id, project number, topic)
    nodes: int = 0


def _session_rows(synth: Synth, data: Dataset, count: int) -> list[dict[str, Any]]:
    base = datetime(2025, 1, 1, tzinfo=UTC)
    rows = []
    for _ in range(count):
        i = len(data.sessions)
        proj = i // SESSIONS_PER_PROJECT
        topic = synth.rng.randrange(TOPICS)
        sid = str(uuid.uuid4())
        data.sessions.append((sid, proj, topic))
        start = base + timedelta(hours=i)
        topics = [topic if synth.rng.random() < 0.6 else synth.rng.randrange(TOPICS) for _ in range(TURNS_PER_SESSION)]
        users = synth.texts(topics, 12)
        answers = synth.texts(topics, 40)
        results = synth.texts(topics, 20)
        tvecs = synth.vectors(topics)
        turns = [
            {"id": str(uuid.uuid4()), "index": j + 1, "userMessage": users[j], "assistantMessage": answers[j],
             "timestamp": start + timedelta(minutes=j), "embedding": tvecs[j], "toolId": str(uuid.uuid4()),
             "toolName": ("Read", "Grep", "Bash", "Edit")[j % 4], "toolArgs": json.dumps({"arg": users[j][:40]}),
             "toolResult": results[j], "toolMs": 10 + j}
            for j in range(TURNS_PER_SESSION)
        ]
        n1 = TURNS_PER_SESSION // L1_SPAN
        s_topics = [topic] * (n1 + 1)
        stexts = synth.texts(s_topics, 60)
        kfs = synth.texts(s_topics, 6)
        svecs = synth.vectors(s_topics)
        level1 = [
            {"id": str(uuid.uuid4()), "text": stexts[k], "keyFindings": [kfs[k]], "tool": "Read",
             "timestamp": start + timedelta(minutes=(k + 1) * L1_SPAN - 1), "embedding": svecs[k],
             "from": k * L1_SPAN, "to": (k + 1) * L1_SPAN - 1}
            for k in range(n1)
        ]
        level2 = [{"id": str(uuid.uuid4()), "text": stexts[n1], "keyFindings": [kfs[n1]],
                   "timestamp": start + timedelta(minutes=TURNS_PER_SESSION), "embedding": svecs[n1]}]
        rows.append({"id": sid, "cwd": f"{data.ns}/p{proj}/s{i}", "projectPath": f"{data.ns}/p{proj}",
                     "startedAt": start, "lastActivityAt": start + timedelta(minutes=TURNS_PER_SESSION),
                     "turns": turns, "level1": level1, "level2": level2})
    return rows


def grow(mem: GraphMemory, synth: Synth, data: Dataset, target: int, batch: int, log: Log) -> float:
    """Load whole sessions until the dataset holds ``target`` turns + summaries; returns seconds."""
    want = max(1, -(-target // NODES_PER_SESSION))
    t0 = time.perf_counter()
    last = t0
    start_nodes = data.nodes
    while len(data.sessions) < want:
        rows = _session_rows(synth, data, min(batch, want - len(data.sessions)))
        dev_db(mem.db).write("bench/growth_sessions", sessions=rows, model=MODEL)
        data.nodes = len(data.sessions) * NODES_PER_SESSION
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            rate = (data.nodes - start_nodes) / max(1e-9, last - t0)
            log(f"  loaded {data.nodes:,} / {want * NODES_PER_SESSION:,} nodes ({rate:,.0f} nodes/s this step)")
    mem.db.write("meta/await_indexes", timeoutSeconds=3600)
    mem.await_text_index()
    return time.perf_counter() - t0
