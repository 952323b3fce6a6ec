"""Vector query parameters that are cheap to log (moved to :mod:`graphmem.db.params`)."""

from __future__ import annotations

from ..db.params import VectorParam, vector_param

__all__ = ["VectorParam", "vector_param"]
