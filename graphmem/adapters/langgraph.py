"""A LangGraph ``BaseStore`` on graphmem: ``GraphMemoryStore(mem)``.

LangGraph's long-term memory (``store.put(namespace, key, value)``, ``store.search(prefix,
query=..., filter=...)``) lands in the same Neo4j as the conversations and facts, as graphmem items
(:mod:`graphmem.items`: one ``Item`` node per namespace and key, the value as JSON). Items and not
facts, because a store's put replaces the value under a key exactly, where a fact is merged with
similar statements and retired by corrections.

- ``name`` names the store: stores of different names never see each other's items.
- A query searches by meaning with the memory's embedder (exact cosine over the items under the
  prefix; ``SearchItem.score`` is the cosine), or on the full-text index when the memory has no
  embedder. What is searched is set by ``index``: field paths in LangGraph's syntax (``"text"``,
  ``"facts[*].content"``; default ``["$"]``, the whole value) joined into one text, or False for
  nothing; ``put(..., index=...)`` overrides it per item, ``index=False`` stores an item no query finds.
- Without a query, search returns the most recently updated items first; ``filter`` as in LangGraph
  (equality, nested objects, ``$eq $ne $gt $gte $lt $lte``).
- A batch answers its reads from the state before the batch, then applies its writes (the last
  write of an address wins), as LangGraph's reference ``InMemoryStore`` does.
- ``abatch`` runs the batch on the loop's default executor (the store is built on the synchronous
  :class:`~graphmem.GraphMemory`). TTLs are not supported (``supports_ttl`` is False).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from .. import items
from ..memory import GraphMemory

__all__ = ["GraphMemoryStore"]


class GraphMemoryStore(BaseStore):
    """A LangGraph store whose items are graphmem items of the store ``name``."""

    def __init__(self, mem: GraphMemory, *, name: str = "default",
                 index: Sequence[str] | Literal[False] = ("$",)) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("name: a non-empty string is required")
        self.mem = mem
        self.name = name
        self.index_fields: list[str] | Literal[False] = False if index is False else list(index)

    # -- LangGraph's interface -----------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = [None] * len(ops)
        gets = [(n, op) for n, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = items.get_items(self.mem.db, self.name, [(op.namespace, op.key) for _, op in gets])
            for (n, _), got in zip(gets, found, strict=True):
                results[n] = _as_item(got) if got is not None else None
        puts: list[items.ItemPut] = []
        for n, op in enumerate(ops):
            if isinstance(op, SearchOp):
                found_items = items.search_items(
                    self.mem.db, self.name, op.namespace_prefix, query=op.query, filter=op.filter,
                    limit=op.limit, offset=op.offset, embedder=self.mem.embedder if op.query else None)
                results[n] = [_as_search_item(it) for it in found_items]
            elif isinstance(op, ListNamespacesOp):
                conditions = [(tuple(c.path), c.match_type == "suffix") for c in op.match_conditions or ()]
                for c in op.match_conditions or ():
                    if c.match_type not in ("prefix", "suffix"):
                        raise ValueError(f"match_type: unknown {c.match_type!r} (prefix or suffix)")
                results[n] = items.list_namespaces(self.mem.db, self.name, conditions=conditions,
                                                   max_depth=op.max_depth, limit=op.limit, offset=op.offset)
            elif isinstance(op, PutOp):
                puts.append(items.ItemPut(op.namespace, op.key, op.value,
                                          self._text(op.value, op.index) if op.value is not None else None))
            elif not isinstance(op, GetOp):
                raise ValueError(f"unknown operation: {type(op).__name__}")
        if puts:
            items.put_items(self.mem.db, self.name, puts, embedder=self.mem.embedder, redact_secrets=self.mem.redact)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

    # -- graphmem's additions -------------------------------------------------------------------
    def clear(self) -> int:
        """Delete every item of this store; returns how many there were."""
        return items.clear_items(self.mem.db, self.name)

    def _text(self, value: Mapping[str, Any], index: Literal[False] | list[str] | None) -> str | None:
        fields = self.index_fields if index is None else index
        if fields is False:
            return None
        try:
            texts = [text for field in fields
                     for text in get_text_at_path(value, tokenize_path(field) if field != "$" else "$")]
        except (TypeError, ValueError):  # not JSON: put_items refuses the value, naming it
            return None
        return "\n".join(texts) or None


def _as_item(it: items.StoredItem) -> Item:
    return Item(value=it.value, key=it.key, namespace=it.namespace, created_at=it.created_at, updated_at=it.updated_at)


def _as_search_item(it: items.StoredItem) -> SearchItem:
    return SearchItem(namespace=it.namespace, key=it.key, value=it.value, created_at=it.created_at,
                      updated_at=it.updated_at, score=it.score)
