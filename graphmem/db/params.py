"""Vector query parameters that are cheap to log.

The neo4j Python driver (6.x) formats every RUN message for its debug log *before* checking the
log level (``" ".join(map(repr, fields))``), so a 512-float list parameter costs a full ``repr`` of
every float on each statement: about 1.5 ms per vector on an idle core, seconds for a bulk batch of
2,000 vectors. :class:`VectorParam` is a plain ``list`` for the driver's packer (packed exactly as
before) whose ``repr`` is short.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["VectorParam", "vector_param"]


class VectorParam(list[float]):
    """A list of floats with a short ``repr`` (see the module docstring)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vector_param(vector: Sequence[float] | Iterable[float] | None) -> VectorParam | None:
    """``vector`` as a :class:`VectorParam` (None stays None; an existing one is returned as is)."""
    if vector is None or isinstance(vector, VectorParam):
        return vector
    return VectorParam(vector)
