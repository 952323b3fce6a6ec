#!/usr/bin/env bash
# Search latency of two checkouts of graphmem, alternating processes on one kept load (load.py):
#   bash benchmarks/latency/ab/ab.sh /tmp/ns.json <checkout A> <checkout B> [rounds]
# e.g. A = a `git worktree add /tmp/before <commit>`, B = this clone. Each round runs A then B, each a
# process of its own (this clone's search_once.py with that checkout first on PYTHONPATH; run from outside both
# checkouts, so neither is the working directory). Not one process: compare the rounds' medians.
set -euo pipefail
ns=$1; a=$2; b=$3; rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-$here/../../../.venv/bin/python}
cd /tmp
for r in $(seq "$rounds"); do
  for side in "$a" "$b"; do
    printf 'round %s %-28s ' "$r" "$side"
    PYTHONPATH="$side:$side/devtools" "$py" "$here/search_once.py" "$ns"
  done
done
