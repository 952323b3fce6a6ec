"""Speed of secret redaction (kept out of the unit tests, which check only what it redacts).

Run with the project's venv: ``.venv/bin/python benchmarks/redaction_speed.py [--repeat 5]``.
Prints the median wall time of ``redact`` on 1 MB of mixed text and on inputs built to make a
careless pattern backtrack; the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable

try:
    from graphmem.redaction import redact
except ImportError:  # before the module moved out of graphmem.integrations
    from graphmem.integrations import redact

PATHOLOGICAL = {
    "PEM header x20000": "-----BEGIN RSA PRIVATE KEY-----\n" * 20000,
    "password= x50000": "password=" * 50000,
    "a x500000": "a" * 500_000,
    "://a: x200000": "://" + "a:" * 200_000,
    'secret=" x50000': 'secret="' * 50000,
}


def mixed_megabyte(seed: int = 1) -> str:
    rng = random.Random(seed)
    words = ["the", "invoice", "total", "rounding", "é", "à", "🎉", "def", "return", "class", "self", "value"]
    secrets = ["sk-proj-" + "Zq8xN2vL4mT7pR1sW9yB3cF6hJ0kD5gA8eU2iO4nM7qX1zV3", "AKIAZ7Q4MXR2LNP8WBT3",
               "password=CorrectHorse#Battery9"]
    parts: list[str] = []
    size = 0
    while size < 1_000_000:
        piece = rng.choice(secrets) if rng.random() < 0.002 else " ".join(rng.choice(words) for _ in range(12))
        parts.append(piece)
        size += len(piece) + 1
    return "\n".join(parts)[:1_000_000]


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    print(f"load average {[round(x, 2) for x in os.getloadavg()]}")
    text = mixed_megabyte()
    print(f"1 MB mixed text: {median_ms(lambda: redact(text), args.repeat):.0f} ms")
    for name, value in PATHOLOGICAL.items():
        print(f"{name} ({len(value):,} chars): {median_ms(lambda v=value: redact(v), args.repeat):.0f} ms")  # type: ignore[misc]
    return 0


if __name__ == "__main__":
    sys.exit(main())
