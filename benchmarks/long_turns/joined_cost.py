"""What scoring long turns as one document costs a search: ``Searcher.search`` with the default
configuration (the full-text statement also asks the ``long_turn_search`` index, and one more
statement reads the long requests' own field) against ``join_long_turns`` off (long turns scored
field by field, their short requests reweighed), interleaved query by query in one process, on a
namespace of long turns kept by ``graphmem bench coding --keep`` (replies of ~2,500 characters),
hybrid and text modes, turns only, directory scope, k = 10.

    python benchmarks/long_turns/joined_cost.py --ns /graphmem-bench/coding-<id> --queries 300 \\
        --out benchmarks/long_turns/joined-cost.json

Connects to the managed server of ``GRAPHMEM_HOME`` (``graphmem db up``). Prints p50/p95 of each
and the p50 ratios; writes them with the command, commit and load average.
"""

from __future__ import annotations

from dataclasses import replace

from request_weight_cost import compare  # the same interleaved timing and report


def main(argv: list[str] | None = None) -> int:
    return compare(
        argv, script="joined_cost.py", description=(__doc__ or "").split("\n\n")[0], other="field by field",
        configs=lambda b: {"default": b, "field by field": replace(b, join_long_turns=False)},
        count_key="long_turns_joined", count_label="joined long turns",
        knobs=lambda b: {"default long_request_weight": b.long_request_weight,
                         "short_request_chars": b.short_request_chars},
    )


if __name__ == "__main__":
    raise SystemExit(main())
