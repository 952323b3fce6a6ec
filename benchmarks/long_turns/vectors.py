"""Long turns, dense side: one vector per turn (what graphmem stores) against separate user and
assistant vectors and reply chunks (max-sim and mixes), each alone and fused with BM25 the way
graphmem's hybrid fuses (CombSUM of min-max normalised top-50 lists, 0.7 text / 0.3 vector).

Offline: the haystacks of ``graphmem bench coding`` or ``graphmem bench haystack``, USE vectors,
``rank_bm25`` for the lexical side; no database. Scored as the benchmarks score (turn all@k,
session all@5), tune and test halves.

    python benchmarks/long_turns/vectors.py coding      # 20 coding haystacks, ~35 min on 2 cores
    python benchmarks/long_turns/vectors.py haystack    # 20 LoCoMo haystacks, ~4 min

Vectors are cached under --cache (delete it to re-embed); the tables go to stdout and --out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rank_bm25 import BM25Okapi

from graphmem.embedding.local import LocalEmbedder
from graphmem.embedding.pending import turn_embedding_text
from graphmem_devtools.bench.coding_data import build_coding_haystacks
from graphmem_devtools.bench.haystack import build_haystacks
from graphmem_devtools.bench.haystack_core import KS, Haystack, HaystackQuestion, score_ranking, table

Vec = npt.NDArray[np.float32]
Row = tuple[Haystack, HaystackQuestion, dict[str, float]]


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def chunks(text: str, size: int = 600) -> list[str]:
    """Paragraphs packed up to ``size`` characters; a longer paragraph is cut at a sentence end."""
    out: list[str] = []
    cur = ""
    for para in (p.strip() for p in re.split(r"\n\s*\n", text)):
        if not para:
            continue
        while len(para) > size:
            cut = para.rfind(". ", 0, size)
            cut = cut + 1 if cut > size // 3 else size
            if cur:
                out.append(cur)
                cur = ""
            out.append(para[:cut].strip())
            para = para[cut:].strip()
        if cur and len(cur) + len(para) + 2 > size:
            out.append(cur)
            cur = para
        else:
            cur = f"{cur}\n\n{para}" if cur else para
    if cur:
        out.append(cur)
    return out or [text]


def norm(rows: Any) -> Vec:
    m = np.asarray(rows, dtype=np.float32)
    out: Vec = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
    return out


def minmax_top(scores: Vec, depth: int = 50) -> dict[int, float]:
    order = np.argsort(-scores, kind="stable")[:depth]
    top = scores[order]
    lo, hi = float(top.min()), float(top.max())
    return {int(i): (float(v) - lo) / (hi - lo) if hi > lo else 1.0 for i, v in zip(order, top, strict=True)}


def fuse(text: Vec, dense: Vec, w_text: float = 0.7, w_dense: float = 0.3) -> list[int]:
    a, b = minmax_top(text), minmax_top(dense)
    return sorted(set(a) | set(b), key=lambda k: -(w_text * a.get(k, 0.0) + w_dense * b.get(k, 0.0)))


def ranked(scores: Vec) -> list[int]:
    return [int(i) for i in np.argsort(-scores, kind="stable")]


class _WordLlama:
    """wordllama's l2_supercat static token embeddings (256-d, weights inside the ``wordllama`` wheel)."""

    def __init__(self) -> None:
        from wordllama import WordLlama  # type: ignore[import-not-found]

        self.model = WordLlama.load(dim=256)

    def embed(self, texts: list[str]) -> Vec:
        return np.asarray(self.model.embed(texts, norm=True), dtype=np.float32)


def haystack_vectors(emb: Any, h: Haystack, cache: Path) -> tuple[dict[str, Vec], npt.NDArray[np.int64]]:
    """Per turn: whole (graphmem's text), user, assistant; per reply chunk: its vector and owner turn."""
    turns = [t for s in h.sessions for t in s.turns]
    texts: list[str] = []
    owner: list[int] = []
    for i, t in enumerate(turns):
        for c in chunks(t.assistant):
            texts.append(c)
            owner.append(i)
    path = cache / f"{h.name}.npz"
    if path.exists():
        z = np.load(path)
        vecs = {k: np.asarray(z[k], dtype=np.float32) for k in ("whole", "user", "asst", "ch")}
    else:
        vecs = {"whole": norm(emb.embed([turn_embedding_text(t.user, t.assistant) for t in turns])),
                "user": norm(emb.embed([t.user for t in turns])),
                "asst": norm(emb.embed([t.assistant for t in turns])),
                "ch": norm(emb.embed(texts))}
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(path, whole=vecs["whole"], user=vecs["user"], asst=vecs["asst"], ch=vecs["ch"])
    return vecs, np.asarray(owner, dtype=np.int64)


def dense_variants(vecs: dict[str, Vec], owner: npt.NDArray[np.int64], v: Vec) -> dict[str, Vec]:
    n = len(vecs["whole"])
    whole, user = vecs["whole"] @ v, vecs["user"] @ v
    sims = vecs["ch"] @ v
    chunk_max = np.full(n, -1.0, dtype=np.float32)
    np.maximum.at(chunk_max, owner, sims)
    best: dict[int, list[float]] = {}
    for j in np.lexsort((-sims, owner)):
        best.setdefault(int(owner[j]), []).append(float(sims[j]))
    top2 = np.zeros(n, dtype=np.float32)
    for o, vals in best.items():
        top2[o] = float(np.mean(vals[:2]))
    with_user = np.maximum(chunk_max, user)
    return {
        "whole": whole,
        "u/a max": np.maximum(user, vecs["asst"] @ v),
        "chunks max": with_user,
        "whole+chunks max": np.maximum(whole, with_user),
        "whole+0.3 chunkmax": whole + 0.3 * chunk_max,
        "whole+0.5 chunkmax": whole + 0.5 * chunk_max,
        "whole+0.3 user": whole + 0.3 * user,
        "top2 chunks": top2,
    }


def run(haystacks: Sequence[Haystack], cache: Path, log: Callable[[str], None],
        embedder: str = "use") -> dict[str, list[Row]]:
    emb: Any = LocalEmbedder() if embedder == "use" else _WordLlama()
    rows: dict[str, list[Row]] = {}
    t0 = time.monotonic()
    for h in haystacks:
        turns = [t for s in h.sessions for t in s.turns]
        ids = [t.source_id for t in turns]
        bm = BM25Okapi([_tokens(f"{t.user} {t.assistant}") for t in turns])
        vecs, owner = haystack_vectors(emb, h, cache)
        qvecs = norm(emb.embed([q.question for q in h.questions]))
        for q, v in zip(h.questions, qvecs, strict=True):
            text = np.asarray(bm.get_scores(_tokens(q.question)), dtype=np.float32)
            rankings = {"bm25": ranked(text)}
            for name, scores in dense_variants(vecs, owner, v).items():
                rankings[f"dense {name}"] = ranked(scores)
                rankings[f"fuse {name}"] = fuse(text, scores)
            for name, order in rankings.items():
                rows.setdefault(name, []).append((h, q, score_ranking(q, [ids[i] for i in order[: max(KS)]])))
        log(f"{h.name}: {len(turns)} turns, {len(owner)} chunks, {time.monotonic() - t0:.0f} s")
    return rows


def print_tables(rows: dict[str, list[Row]], haystacks: Sequence[Haystack], width: int = 28) -> dict[str, Any]:
    """Each ranking's :func:`table` (per half and question group), printed one line per ranking:
    turn all@5, all@10 and session all@5 of the tune and test halves."""
    groups = sorted({q.group for h in haystacks for q in h.questions})
    tables = {name: table(rs, groups) for name, rs in rows.items()}
    for name, t in tables.items():
        print(f"{name:{width}s} " + " | ".join(
            f"{half} @5 {t[half]['overall']['turn all@5']:.3f} @10 {t[half]['overall']['turn all@10']:.3f} "
            f"s@5 {t[half]['overall']['session all@5']:.3f}" for half in ("tune", "test") if "overall" in t.get(half, {})))
    return tables


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("which", choices=["coding", "haystack"])
    p.add_argument("--locomo", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    p.add_argument("--cache", type=Path, default=Path("/tmp/graphmem-long-turns"))
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--embedder", choices=["use", "wordllama"], default="use",
                   help="use: graphmem's local embedder; wordllama: wordllama==0.4.0.post1's 256-d static embeddings")
    args = p.parse_args()
    hs = build_coding_haystacks(20, seed=11) if args.which == "coding" else build_haystacks(args.locomo)
    load_before = [round(x, 2) for x in os.getloadavg()]
    cache = args.cache / args.which if args.embedder == "use" else args.cache / f"{args.which}-{args.embedder}"
    rows = run(hs, cache, lambda m: print(m, flush=True), args.embedder)
    tables = print_tables(rows, hs)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout
        args.out.write_text(json.dumps({
            "command": " ".join(["python", *sys.argv]), "commit": commit.strip(), "load_before": load_before,
            "load_after": [round(x, 2) for x in os.getloadavg()], "tables": tables}, indent=1) + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
