"""Items: JSON documents filed under a namespace (a path of labels) and a key, in a named store.

This is the key-value memory agent frameworks expect beside conversations and facts (LangGraph's
``BaseStore`` is built on it: :mod:`graphmem.adapters.langgraph`). An item is one node,
``(:Item {store, namespace, nsKey, key, value, text, embedding, createdAt, updatedAt})``:

- ``store`` names the store (one database holds many, each its own keyspace);
- ``namespace`` is the list of labels and ``nsKey`` its JSON text (unique with ``store`` and ``key``);
- ``value`` is the document as JSON text, returned exactly as stored (secrets redacted when the
  memory redacts, like every other text graphmem stores);
- ``text`` is what search reads (the caller chooses it; None: the item is never found by a query),
  ``embedding`` its vector when the memory has an embedder.

Items are not facts: a fact is a statement that graphmem merges with similar ones, retires on a
correction and injects before a model call, while an item is addressed by its key and replaced as a
whole by the next put under that key, which is what a key-value store promises.

Search by meaning is an exact cosine over the items under the namespace prefix (no approximate
index: prefix scopes are what an agent searches, and an exact scan keeps every hit's score the real
cosine); without an embedder a query runs on the ``item_search`` full-text index. Value filters
(equality, nested objects, ``$eq $ne $gt $gte $lt $lte``) are applied here, on the decoded values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .db import Database
from .db.rows import native
from .embedding import Embedder, query_vector
from .errors import InvalidInput, quoted
from .models import utcnow
from .redaction import redact, redact_value
from .retrieval.lucene import build_query

__all__ = [
    "ItemPut",
    "StoredItem",
    "clear_items",
    "get_items",
    "list_namespaces",
    "matches_filter",
    "namespace_matches",
    "put_items",
    "search_items",
]

Namespace = tuple[str, ...]
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


@dataclass(frozen=True)
class ItemPut:
    """One write: ``value`` None deletes the item; ``text`` None stores it unsearchable by query."""

    namespace: Namespace
    key: str
    value: Mapping[str, Any] | None
    text: str | None = None


@dataclass(frozen=True)
class StoredItem:
    namespace: Namespace
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    score: float | None = None
    """The cosine to the query (semantic search) or its BM25 score (text search); None otherwise."""


def _ns_key(namespace: Namespace) -> str:
    return json.dumps(list(namespace), ensure_ascii=False)


def _check_address(namespace: Sequence[Any], key: Any, where: str) -> Namespace:
    if not isinstance(namespace, tuple | list) or not all(isinstance(p, str) and p for p in namespace):
        raise InvalidInput(f"{where}.namespace: a tuple of non-empty strings is required, got {quoted(namespace)}")
    if not isinstance(key, str):
        raise InvalidInput(f"{where}.key: a string is required, got {type(key).__name__}")
    return tuple(namespace)


def _encode(value: Mapping[str, Any], where: str) -> str:
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{where}.value: a dict is required, got {type(value).__name__}")
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"{where}.value: not JSON ({e})") from None


def _item(row: Mapping[str, Any], score: float | None = None) -> StoredItem:
    return StoredItem(tuple(row["namespace"]), row["key"], json.loads(row["value"]), native(row["createdAt"]),
                      native(row["updatedAt"]), score)


def put_items(db: Database, store: str, puts: Sequence[ItemPut], *, embedder: Embedder | None,
              redact_secrets: bool = True, now: datetime | None = None) -> None:
    """Apply ``puts`` in order (a later put of the same address wins): deletes first, then one write
    for the rest. Texts are embedded in one batch when there is an embedder."""
    last: dict[tuple[Namespace, str], ItemPut] = {}
    for n, put in enumerate(puts):
        ns = _check_address(put.namespace, put.key, f"puts[{n}]")
        if put.value is not None:
            _encode(put.value, f"puts[{n}]")
        last[(ns, put.key)] = put
    deletes = [{"nsKey": _ns_key(ns), "key": key} for (ns, key), p in last.items() if p.value is None]
    writes = [(ns, key, p) for (ns, key), p in last.items() if p.value is not None]
    rows: list[dict[str, Any]] = []
    for ns, key, p in writes:
        assert p.value is not None
        value, _ = redact_value(dict(p.value), enabled=redact_secrets)
        text = redact(p.text, enabled=redact_secrets)[0] if p.text else None
        rows.append({"namespace": list(ns), "nsKey": _ns_key(ns), "key": key,
                     "value": json.dumps(value, ensure_ascii=False), "text": text, "embedding": None})
    if embedder is not None:
        wanted = [row for row in rows if row["text"]]
        if wanted:
            for row, vector in zip(wanted, embedder.embed([row["text"] for row in wanted]), strict=True):
                row["embedding"] = vector
    if deletes:
        db.write("items/delete", store=store, rows=deletes)
    if rows:
        db.write("items/put", store=store, rows=rows, now=now or utcnow())


def get_items(db: Database, store: str, addresses: Sequence[tuple[Namespace, str]]) -> list[StoredItem | None]:
    """The items at ``addresses``, in order (None where there is none)."""
    if not addresses:
        return []
    rows = [{"pos": n, "nsKey": _ns_key(_check_address(ns, key, f"gets[{n}]")), "key": key}
            for n, (ns, key) in enumerate(addresses)]
    out: list[StoredItem | None] = [None] * len(addresses)
    for row in db.read("items/get", store=store, rows=rows):
        out[row["pos"]] = _item(row)
    return out


def _ordered(left: Any, right: Any) -> tuple[float, float] | None:
    """Both sides as numbers for an ordering operator (None: not comparable, the item does not match)."""
    try:
        a, b = float(left), float(right)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(a) or math.isnan(b) else (a, b)


def _operator(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    pair = _ordered(value, operand)
    if pair is None:
        return False
    a, b = pair
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_operator(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(wanted)
                and all(_matches(v, w) for v, w in zip(value, wanted, strict=True)))
    return bool(value == wanted)


def check_filter(filter: Mapping[str, Any] | None) -> None:
    """Raise :class:`InvalidInput` naming the first unknown ``$`` operator of ``filter``."""

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if isinstance(k, str) and k.startswith("$") and k not in OPERATORS:
                    raise InvalidInput(f"filter{path}: unknown operator {k} (known: {', '.join(OPERATORS)})")
                walk(v, f"{path}.{k}")

    walk(filter or {}, "")


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether a value passes ``filter``: each key's value equal (objects compared key by key, lists
    element by element) or satisfying its operators (``$gt`` ... compare as numbers)."""
    return all(_matches(value.get(k), v) for k, v in (filter or {}).items())


def search_items(db: Database, store: str, prefix: Namespace, *, query: str | None = None,
                 filter: Mapping[str, Any] | None = None, limit: int = 10, offset: int = 0,
                 embedder: Embedder | None = None) -> list[StoredItem]:
    """Items under ``prefix`` passing ``filter``: without ``query`` the most recently updated first;
    with one, by meaning (cosine, items stored without a vector last, unscored) or, without an
    embedder, by the full-text index (only the items whose text matches)."""
    prefix = _check_address(prefix, "", "search") if prefix else ()
    if limit < 0 or offset < 0:
        raise InvalidInput("search: limit and offset must be >= 0")
    check_filter(filter)
    rows: list[dict[str, Any]]
    if query and embedder is not None:
        rows = db.read("items/semantic", store=store, prefix=list(prefix), vector=query_vector(embedder, query))
    elif query and (lucene := build_query(query, fields={"text": 1.0})) is not None:
        rows = db.read("items/text", store=store, prefix=list(prefix), lucene=lucene)
    elif not filter:
        return [_item(r) for r in db.read("items/page", store=store, prefix=list(prefix), offset=offset, limit=limit)]
    else:
        rows = db.read("items/scan", store=store, prefix=list(prefix))
    items = [_item(r, r.get("score")) for r in rows]
    if filter:
        items = [it for it in items if matches_filter(it.value, filter)]
    return items[offset: offset + limit]


def namespace_matches(namespace: Namespace, path: Sequence[str], *, suffix: bool = False) -> bool:
    """Whether ``namespace`` starts (ends, with ``suffix``) with ``path``; ``"*"`` matches any label."""
    if len(path) > len(namespace):
        return False
    part = namespace[len(namespace) - len(path):] if suffix else namespace[: len(path)]
    return all(p in ("*", n) for n, p in zip(part, path, strict=True))


def list_namespaces(db: Database, store: str, *, conditions: Sequence[tuple[Sequence[str], bool]] = (),
                    max_depth: int | None = None, limit: int = 100, offset: int = 0) -> list[Namespace]:
    """The namespaces holding items that meet every condition (a path, and True when it must match
    the end instead of the start), cut to ``max_depth`` labels and deduplicated, sorted."""
    if max_depth is not None and max_depth < 1:
        raise InvalidInput("list_namespaces: max_depth must be >= 1")
    if limit < 0 or offset < 0:
        raise InvalidInput("list_namespaces: limit and offset must be >= 0")
    found = {tuple(r["namespace"]) for r in db.read("items/namespaces", store=store)}
    kept = [ns for ns in found if all(namespace_matches(ns, path, suffix=suffix) for path, suffix in conditions)]
    if max_depth is not None:
        kept = list({ns[:max_depth] for ns in kept})
    return sorted(kept)[offset: offset + limit]


def clear_items(db: Database, store: str) -> int:
    """Delete every item of ``store``; returns how many there were."""
    rows = db.write("items/clear", store=store)
    return int(rows[0]["deleted"]) if rows else 0
