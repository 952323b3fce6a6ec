"""Live observation benchmark: ``observe`` (one message of an observed room, one write) with N live
messages already stored (default 100,000), and the live block's search (``live_context``) at that size.
Own rooms, batched inserts, deleted after."""

from __future__ import annotations

import random
import time
import uuid
from datetime import UTC, datetime, timedelta

import numpy as np

from graphmem.chat import clear_live, embed_pending_live, live_context, observe
from graphmem.db.params import vector_param
from graphmem.memory import GraphMemory

from ..statements import dev_db
from .common import BenchResult, machine_info, managed_server_pid, percentiles, wait_for_idle_server

__all__ = ["run_observe_bench"]

_AUTHORS = ["david", "mickael", "julie", "tom", "sarah", "paul", "nina", "hugo"]
_WORDS = ["ok", "lol", "demain", "ce soir", "le match", "la pluie", "Grèce", "le train", "la réunion", "pizza",
          "le chat", "le boulot", "les vacances", "un film", "la musique", "le vélo"]


def _text(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_WORDS)} {rng.choice(_WORDS)} {rng.choice(_WORDS)} ({i})"


def run_observe_bench(mem: GraphMemory, *, messages: int = 100_000, samples: int = 1000, warmup: int = 300,
                      batch: int = 5000, seed: int = 7, command: str = "graphmem bench observe") -> BenchResult:
    """Load ``messages`` live messages into a room (UNWIND batches, random unit vectors), then time
    ``observe`` into that room and ``live_context`` (the top 10 for a question) over it."""
    mem.init_schema()
    room = f"bench-{uuid.uuid4().hex[:12]}"
    info = mem.db.server_info()
    result = BenchResult("observe", command, machine_info(info.version))
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        t0 = time.perf_counter()
        loaded = 0
        while loaded < messages:
            n = min(batch, messages - loaded)
            raw = nprng.standard_normal((n, mem.embedding_dimensions)).astype(np.float32)
            vectors = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).tolist()
            rows = [{"id": str(uuid.uuid4()), "author": rng.choice(_AUTHORS), "text": _text(rng, loaded + j),
                     "at": start + timedelta(seconds=loaded + j), "vector": vector_param(v)}
                    for j, v in enumerate(vectors)]
            dev_db(mem.db).write("bench/live_load", room=room, rows=rows)
            loaded += n
        load_s = time.perf_counter() - t0
        mem.db.write("meta/await_indexes", timeoutSeconds=600)
        result.figures["bulk load"] = f"{loaded} live messages in {load_s:.1f} s, batches of {batch}"
        wait_for_idle_server(managed_server_pid())

        for i in range(warmup):
            observe(mem.db, room, rng.choice(_AUTHORS), _text(rng, 10**7 + i))
        times = []
        for i in range(samples):
            text = _text(rng, 2 * 10**7 + i)
            author = rng.choice(_AUTHORS)
            t1 = time.perf_counter()
            observe(mem.db, room, author, text)
            times.append((time.perf_counter() - t1) * 1000)
        result.figures[f"observe at {loaded:,} live messages"] = percentiles(times)

        if mem.embedder is not None:
            t2 = time.perf_counter()
            n = embed_pending_live(mem.db, mem.embedder)
            result.figures["embedding pending messages (off the write path)"] = (
                f"{n} messages in {time.perf_counter() - t2:.1f} s")
            search = []
            for i in range(min(samples, 200)):
                question = f"{rng.choice(_WORDS)} {rng.choice(_AUTHORS)} ? ({i})"
                t3 = time.perf_counter()
                live_context(mem.db, mem.embedder, question, config=mem.chat, rooms=[room])
                search.append((time.perf_counter() - t3) * 1000)
            result.figures["live_context (embed question + top 10 of the room)"] = percentiles(search)
        result.notes.append("observe is one CREATE (embedState pending); embedding happens in the worker or "
                            "before the live search, never in observe.")
    finally:
        clear_live(mem.db, room)
    return result
