"""Long turns, dense side: one vector of the whole turn (what graphmem stores with USE) against one vector of
the request and only the head of the reply (its first ``H`` characters), each alone and fused with
plain BM25 the way graphmem's hybrid fuses long turns (CombSUM of min-max normalised top-50 lists,
0.7 text / 0.3 vector, and 0.7 / 0.15: a long turn's vector share is half).

USE averages the words of a text: a 3,000-character reply that wanders through advice, lists and
follow-up questions pulls the turn's vector away from what the request was about. The head of a
reply is where an assistant restates and answers the request. Offline: the assistant-shaped LoCoMo
haystacks (``graphmem bench haystack --replies assistant``: the evidence in the requests) and the
coding-assistant haystacks (``graphmem bench coding``: the evidence in the replies, often far into
them), USE vectors, ``rank_bm25`` over request + reply; no database. Scored as the benchmarks score
(turn all@k, session all@5), tune and test halves, and paired question by question against the
whole-turn vector.

    python benchmarks/long_turns/head_vectors.py assistant --out benchmarks/long_turns/head-vectors-assistant.json
    python benchmarks/long_turns/head_vectors.py coding --out benchmarks/long_turns/head-vectors-coding.json

``--embedder e5`` embeds with graphmem's e5 embedder instead (passages cut at its 2,000 characters,
questions on its query side); ``--haystacks 0,14`` (or ``conv-26-h0,conv-48-h0``) keeps only those
haystacks (e5 reads a long turn in ~0.4 s here, so a full load takes hours). ``--texts "head 300,user"``
embeds only those texts (a head costs e5 about a fifth of the whole turn); ``--shares 0.15,0.3,0.5``
fuses each vector with BM25 at those vector shares (0.7 text beside each). Without the whole turn
the fused rankings are paired against BM25 alone.

Vectors are cached under --cache, one file per haystack and text (delete it to re-embed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi
from vectors import _tokens, fuse, norm, print_tables, ranked

from graphmem.embedding.base import Embedder, query_vector
from graphmem.embedding.e5 import E5Embedder
from graphmem.embedding.local import LocalEmbedder
from graphmem.embedding.pending import turn_embedding_text
from graphmem_devtools.bench.coding_data import build_coding_haystacks
from graphmem_devtools.bench.common import write_script_results
from graphmem_devtools.bench.haystack import UnknownHaystackError, build_haystacks, pick_haystacks
from graphmem_devtools.bench.haystack_core import KS, Haystack, score_ranking

HEADS = (300, 800)
TEXTS = ("whole", "user", *(f"head {n}" for n in HEADS))


def _texts(h: Haystack, names: Sequence[str]) -> dict[str, list[str]]:
    """Only the named texts of each turn: the whole turn, the request alone, or request + reply head."""
    turns = [t for s in h.sessions for t in s.turns]
    heads = {f"head {n}": n for n in HEADS}
    return {name: [t.user if name == "user" else
                   turn_embedding_text(t.user, t.assistant[: heads[name]] if name in heads else t.assistant)
                   for t in turns] for name in names}


def _vectors(emb: Embedder, h: Haystack, cache: Path, names: Sequence[str]) -> dict[str, Any]:
    vecs: dict[str, Any] = {}
    cache.mkdir(parents=True, exist_ok=True)
    for name, texts in _texts(h, names).items():
        path = cache / f"{h.name}-{name.replace(' ', '_')}.npy"
        if not path.exists():
            np.save(path, norm(emb.embed(texts)))
        vecs[name] = np.asarray(np.load(path), dtype=np.float32)
    return vecs


def _paired(rows: dict[str, list[Any]], base: str, k: int) -> dict[str, dict[str, int]]:
    """Per variant and half: questions won and lost at all@k against ``base``."""
    key = f"turn all@{k}"
    out: dict[str, dict[str, int]] = {}
    for name, rs in rows.items():
        if name == base:
            continue
        cell: dict[str, int] = {}
        for (h, _, fig), (_, _, ref) in zip(rs, rows[base], strict=True):
            half = h.half
            won, lost = fig[key] > ref[key], fig[key] < ref[key]
            cell[f"{half} won"] = cell.get(f"{half} won", 0) + int(won)
            cell[f"{half} lost"] = cell.get(f"{half} lost", 0) + int(lost)
        out[name] = cell
    return out


def run(haystacks: Sequence[Haystack], cache: Path, emb: Embedder, names: Sequence[str] = TEXTS,
        shares: Sequence[float] = (0.3, 0.15)) -> dict[str, list[Any]]:
    rows: dict[str, list[Any]] = {}
    t0 = time.monotonic()
    for h in haystacks:
        turns = [t for s in h.sessions for t in s.turns]
        ids = [t.source_id for t in turns]
        bm = BM25Okapi([_tokens(f"{t.user} {t.assistant}") for t in turns])
        vecs = _vectors(emb, h, cache, names)
        qvecs = norm([query_vector(emb, q.question) for q in h.questions])
        for q, v in zip(h.questions, qvecs, strict=True):
            text = np.asarray(bm.get_scores(_tokens(q.question)), dtype=np.float32)
            rankings = {"bm25": ranked(text)}
            sims = {name: m @ v for name, m in vecs.items()}
            for n in HEADS:  # two vectors per turn: the head's and the whole turn's, scored by the better
                if "whole" in sims and f"head {n}" in sims:
                    sims[f"max whole, head {n}"] = np.maximum(sims["whole"], sims[f"head {n}"])
            for name, scores in sims.items():
                rankings[f"dense {name}"] = ranked(scores)
                for w in shares:
                    rankings[f"fuse {w:g} {name}"] = fuse(text, scores, w_dense=w)
            for name, order in rankings.items():
                rows.setdefault(name, []).append((h, q, score_ranking(q, [ids[i] for i in order[: max(KS)]])))
        print(f"{h.name}: {len(turns)} turns, {time.monotonic() - t0:.0f} s", flush=True)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("which", choices=["assistant", "coding"])
    p.add_argument("--locomo", type=Path, default=Path("../shared/benchmarks/locomo/locomo10.json"))
    p.add_argument("--cache", type=Path, default=Path("/tmp/graphmem-head-vectors"))
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--embedder", choices=["use", "e5"], default="use")
    p.add_argument("--haystacks", default="", help="comma-separated haystack names or indexes to keep (default: all)")
    p.add_argument("--texts", default=",".join(TEXTS), help=f"comma-separated texts to embed, of {', '.join(TEXTS)}")
    p.add_argument("--shares", default="0.3,0.15", help="comma-separated vector shares to fuse with BM25 at")
    args = p.parse_args()
    names = [n.strip() for n in args.texts.split(",") if n.strip()]
    unknown = sorted(set(names) - set(TEXTS))
    if unknown:
        p.error(f"unknown --texts {', '.join(unknown)}: the texts are {', '.join(TEXTS)}")
    shares = [float(w) for w in args.shares.split(",") if w.strip()]
    load_before = os.getloadavg()
    hs = build_coding_haystacks(20, seed=11) if args.which == "coding" else build_haystacks(args.locomo,
                                                                                          replies="assistant")
    picks = [x.strip() for x in args.haystacks.split(",") if x.strip()]
    try:  # an index (as recorded commands give them) or a name (as `graphmem bench haystack --haystacks`)
        hs = pick_haystacks(hs, [hs[int(x)].name if x.isdigit() else x for x in picks])
    except (IndexError, UnknownHaystackError) as e:
        p.error(f"--haystacks {args.haystacks}: {e}")
    emb: Embedder = E5Embedder() if args.embedder == "e5" else LocalEmbedder()
    rows = run(hs, args.cache / args.which / args.embedder, emb, names, shares)
    tables = print_tables(rows, hs, width=22)
    paired = {}
    kinds = ["dense", *(f"fuse {w:g}" for w in shares)]
    for kind in kinds:
        base = f"{kind} whole"
        if base in rows:
            subset = {n: r for n, r in rows.items() if n.startswith(kind + " ")}
        elif kind != "dense":
            base = "bm25"
            subset = {n: r for n, r in rows.items() if n.startswith(kind + " ") or n == base}
        else:
            continue
        key = f"{kind} vs {base}"
        paired[key] = {f"all@{k}": _paired(subset, base, k) for k in (5, 10)}
        for k in (5, 10):
            for name, cell in paired[key][f"all@{k}"].items():
                print(f"  vs {base} at {k}: {name:22s} {cell}")
    if args.out:
        write_script_results(args.out, "benchmarks/long_turns/head_vectors.py", load_before, which=args.which,
                             heads=list(HEADS), embedder=args.embedder, texts=names, shares=shares,
                             haystacks=[h.name for h in hs], questions=sum(len(h.questions) for h in hs),
                             turns=sum(len(s.turns) for h in hs for s in h.sessions), tables=tables, paired=paired)
    return 0


if __name__ == "__main__":
    sys.exit(main())
