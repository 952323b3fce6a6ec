"""Embedders: local USE model, OpenAI over real HTTP to a local fake server, cache, factory."""

from __future__ import annotations

import dataclasses
import hashlib
import math
import types
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from email.utils import formatdate

import httpx2
import numpy as np
import openai
import pytest
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.embedding import (
    LOCAL_EMBEDDING_MODEL,
    CachedEmbedder,
    Embedder,
    LocalEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    embedding_hash,
    make_embedder,
)
from graphmem.errors import ConfigError, ProviderError
from graphmem.providers import RetryPolicy
from graphmem.providers.retry import is_retryable, retry_after_seconds
from tests.fake_openai import (
    FakeOpenAIServer,
    Reply,
    bad_request,
    fake_vector,
    rate_limited,
    server_error,
    stall,
    unauthorized,
)

FAST = RetryPolicy(max_attempts=4, initial_backoff=0.01, max_backoff=0.05)


def norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --------------------------------------------------------------------------------------------
# local
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    e = LocalEmbedder()
    e.load()
    return e


def test_local_model_name_matches_memory() -> None:
    from graphmem.memory import LOCAL_EMBEDDING_DIMENSIONS as MEM_DIMS
    from graphmem.memory import LOCAL_EMBEDDING_MODEL as MEM_MODEL

    assert (LOCAL_EMBEDDING_MODEL, 512) == (MEM_MODEL, MEM_DIMS)
    e = LocalEmbedder()
    assert (e.model, e.dimensions) == ("use-multilingual-v3", 512)


def test_local_shape_and_normalisation(local: LocalEmbedder) -> None:
    texts = ["hello world", "bonjour le monde", "", "x" * 3000, "lone \ud800 surrogate", "emoji 🚀 ok"]
    vectors = local.embed(texts)
    assert len(vectors) == len(texts)
    for v in vectors:
        assert len(v) == 512
        assert all(isinstance(x, float) for x in v)
        assert norm(v) == pytest.approx(1.0, abs=1e-5)
    assert local.embed([]) == []
    with pytest.raises(TypeError):
        local.embed("not a list")


def test_local_truncates_long_texts(local: LocalEmbedder) -> None:
    short = LocalEmbedder(max_chars=200)
    text = "the retry loop waits for the server. " * 10 + "completely different tail about cooking pasta " * 10
    assert short.embed([text]) == local.embed([text[:200]])


def test_local_is_deterministic(local: LocalEmbedder) -> None:
    texts = ["the worker retries failed embeddings", "la base Neo4j est démarrée"]
    assert local.embed(texts) == local.embed(texts)
    assert local.embed_one(texts[0]) == local.embed([texts[0]])[0]
    assert LocalEmbedder().embed(texts) == local.embed(texts)  # the model is shared, same output


def test_local_is_multilingual(local: LocalEmbedder) -> None:
    en, fr, other = local.embed(
        [
            "The database connection failed because the server was not started.",
            "La connexion à la base de données a échoué parce que le serveur n'était pas démarré.",
            "My grandmother grows tomatoes in her garden every summer.",
        ]
    )
    assert cos(en, fr) > cos(en, other) + 0.2
    assert cos(en, fr) > cos(fr, other) + 0.2


def test_local_batches(local: LocalEmbedder) -> None:
    texts = [f"sentence number {i} about graphs" for i in range(7)]
    small = LocalEmbedder(batch_size=3)
    assert np.allclose(small.embed(texts), local.embed(texts), atol=1e-5)


# --------------------------------------------------------------------------------------------
# hashing and cache
# --------------------------------------------------------------------------------------------


def test_embedding_hash() -> None:
    h = embedding_hash("hello", "use-multilingual-v3")
    assert h == hashlib.sha256(b"use-multilingual-v3\x00hello").hexdigest()
    assert len(h) == 64
    assert h != embedding_hash("hello", "text-embedding-3-small")
    assert embedding_hash("ab", "c") != embedding_hash("b", "ca")
    assert len(embedding_hash("\ud800", "m")) == 64  # total on lone surrogates


class CountingEmbedder:
    """A plain embedder that counts what it computes (to observe the cache)."""

    model = "counting"
    dimensions = 4

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return [[float(len(t)) + 1.0, 1.0, 0.0, 0.0] for t in texts]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def test_cache_hit_avoids_recomputation(local: LocalEmbedder) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, maxsize=2)
    first = cached.embed(["a", "bb", "a"])
    assert inner.seen == ["a", "bb"]  # duplicates within a call are computed once
    assert first[0] == first[2]
    assert cached.embed(["bb", "a"]) == [first[1], first[0]]
    assert inner.seen == ["a", "bb"]
    cached.embed(["ccc"])  # evicts the least recently used: "bb"
    cached.embed(["a"])
    assert inner.seen == ["a", "bb", "ccc"]
    cached.embed(["bb"])
    assert inner.seen == ["a", "bb", "ccc", "bb"]
    info = cached.cache_info()
    assert info["size"] == 2 and info["maxsize"] == 2 and info["misses"] == 4

    wrapped = CachedEmbedder(local)
    v1 = wrapped.embed(["cache me"])
    v2 = wrapped.embed_one("cache me")
    assert v1[0] == v2 == local.embed(["cache me"])[0]  # bit-identical from the cache
    assert wrapped.cache_info()["hits"] == 1
    assert (wrapped.model, wrapped.dimensions) == (local.model, local.dimensions)


def test_protocol() -> None:
    assert isinstance(LocalEmbedder(), Embedder)
    assert isinstance(CachedEmbedder(LocalEmbedder()), Embedder)


# --------------------------------------------------------------------------------------------
# OpenAI over real HTTP
# --------------------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


def make(server: FakeOpenAIServer, **kwargs: object) -> OpenAIEmbedder:
    opts: dict[str, object] = {"api_key": server.api_key, "base_url": server.base_url, "retry": FAST, "timeout": 5.0}
    opts.update(kwargs)
    return OpenAIEmbedder(**opts)  # type: ignore[arg-type]


def test_openai_batching_and_order(server: FakeOpenAIServer) -> None:
    emb = make(server, batch_size=3)
    texts = [f"text {i}" for i in range(7)]
    vectors = emb.embed(texts)
    assert [len(r.body["input"]) for r in server.requests("embeddings")] == [3, 3, 1]
    assert [t for r in server.requests("embeddings") for t in r.body["input"]] == texts
    for text, v in zip(texts, vectors, strict=True):
        assert len(v) == 1536 and norm(v) == pytest.approx(1.0, abs=1e-5)
        assert np.allclose(v, fake_vector(text, 1536, "text-embedding-3-small"), atol=1e-6)
    body = server.requests("embeddings")[0].body
    assert body["model"] == "text-embedding-3-small" and body["encoding_format"] == "float"
    assert "dimensions" not in body
    assert server.requests("embeddings")[0].headers["authorization"] == f"Bearer {server.api_key}"
    assert emb.requests == 3 and emb.prompt_tokens > 0
    assert emb.embed([]) == []


def test_openai_batches_are_bounded_by_characters(server: FakeOpenAIServer) -> None:
    emb = make(server, batch_size=100, max_batch_chars=250, max_chars=100)
    emb.embed(["a" * 300, "b" * 80, "c" * 80, "d" * 80, "e"])
    assert [[len(t) for t in r.body["input"]] for r in server.requests("embeddings")] == [[100, 80], [80, 80, 1]]


def test_openai_dimensions_and_model(server: FakeOpenAIServer) -> None:
    emb = make(server, model="text-embedding-3-large", dimensions=256)
    assert emb.dimensions == 256 and emb.model == "text-embedding-3-large"
    assert len(emb.embed_one("hi")) == 256
    assert server.requests("embeddings")[0].body["dimensions"] == 256


def test_openai_unknown_model_is_probed_once(server: FakeOpenAIServer) -> None:
    emb = make(server, model="nomic-embed-text")
    assert emb.dimensions == 64  # the fake server's size for unknown models
    assert emb.dimensions == 64
    assert server.count("embeddings") == 1


def test_openai_wrong_size_is_an_error(server: FakeOpenAIServer) -> None:
    body = {"object": "list", "model": "m", "data": [{"object": "embedding", "index": 0, "embedding": [0.1] * 10}]}
    server.script("embeddings", Reply(json_body=body))
    with pytest.raises(ProviderError, match="10-d vectors but 1536"):
        make(server).embed(["x"])


def test_openai_empty_text_is_sent_as_space(server: FakeOpenAIServer) -> None:
    assert len(make(server).embed(["", "a"])) == 2
    assert server.requests("embeddings")[0].body["input"] == [" ", "a"]


def _recording(policy: RetryPolicy) -> tuple[RetryPolicy, list[float]]:
    """``policy`` with its waits recorded instead of slept."""
    waits: list[float] = []
    return dataclasses.replace(policy, sleep=waits.append), waits


def test_openai_429_honours_retry_after_seconds(server: FakeOpenAIServer) -> None:
    server.script("embeddings", rate_limited(retry_after=1))
    policy, waits = _recording(FAST)
    assert len(make(server, retry=policy).embed(["x"])) == 1
    assert len(waits) == 1 and 1.0 <= waits[0] <= 1.1  # 1 s asked, plus up to 10 % jitter
    assert server.count("embeddings") == 2


def test_openai_429_honours_retry_after_ms_and_cap(server: FakeOpenAIServer) -> None:
    server.script("embeddings", rate_limited(retry_after_ms=150), rate_limited(retry_after=3600))
    policy, waits = _recording(RetryPolicy(max_attempts=4, initial_backoff=0.01, max_retry_after=0.2))
    make(server, retry=policy).embed(["x"])
    # 0.15 s asked (under the cap, not the 0.01 s backoff), then 3600 s capped to 0.2 s; +0-10 % jitter each
    assert len(waits) == 2
    assert 0.15 <= waits[0] <= 0.165 and 0.2 <= waits[1] <= 0.22
    assert server.count("embeddings") == 3


def test_retry_after_http_date() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/embeddings")
    now = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)
    when = formatdate(now.timestamp() + 5, usegmt=True)
    response = httpx2.Response(429, headers={"Retry-After": when}, request=request)
    err = openai.RateLimitError("rate limited", response=response, body=None)
    assert retry_after_seconds(err, now=now) == 5.0
    assert is_retryable(err)
    past = httpx2.Response(429, headers={"Retry-After": formatdate(now.timestamp() - 60, usegmt=True)},
                           request=request)
    assert retry_after_seconds(openai.RateLimitError("x", response=past, body=None), now=now) == 0.0
    junk = httpx2.Response(429, headers={"Retry-After": "soon"}, request=request)
    assert retry_after_seconds(openai.RateLimitError("x", response=junk, body=None)) is None
    auth = openai.AuthenticationError("x", response=httpx2.Response(401, request=request), body=None)
    assert not is_retryable(auth)


def test_backoff_is_jittered_exponential_and_capped() -> None:
    import random

    policy = RetryPolicy(initial_backoff=1.0, multiplier=2.0, max_backoff=5.0, jitter=0.5)
    rng = random.Random(1)
    for attempt, base in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        waits = [policy.backoff(attempt, rng) for _ in range(50)]
        assert all(base * 0.5 <= w <= base for w in waits)
        assert len(set(waits)) > 1
    assert RetryPolicy(jitter=0.0, initial_backoff=0.3).backoff(1) == 0.3
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)


def test_retry_max_elapsed_bounds_the_time(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.script("embeddings", *[server_error()] * 50)
    waits: list[float] = []
    clock = [1000.0]  # the retry loop's monotonic clock: only the waits advance it
    import tenacity

    monkeypatch.setattr(tenacity, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    policy = RetryPolicy(max_attempts=50, initial_backoff=0.2, multiplier=1.0, jitter=0.0, max_elapsed=0.5,
                         sleep=sleep)
    with pytest.raises(ProviderError):
        make(server, retry=policy).embed(["x"])
    # no wait starts that would end past 0.5 s: at most two 0.2 s waits, far from the 50 attempts
    assert 1 <= len(waits) <= 2 and sum(waits) <= 0.5
    assert server.count("embeddings") == len(waits) + 1


def test_openai_500_then_success(server: FakeOpenAIServer) -> None:
    server.script("embeddings", server_error(500), server_error(503))
    assert len(make(server).embed(["x"])) == 1
    assert server.count("embeddings") == 3


def test_openai_malformed_answer_then_success(server: FakeOpenAIServer) -> None:
    server.script("embeddings", Reply(raw_body=b"<html>not the API</html>"), Reply(json_body={"data": None}))
    assert len(make(server).embed(["x"])) == 1
    assert server.count("embeddings") == 3
    server.script("embeddings", *[Reply(raw_body=b"<html>")] * 3)
    with pytest.raises(ProviderError, match="after 2 attempts: malformed"):
        make(server, retry=RetryPolicy(max_attempts=2, initial_backoff=0.01)).embed(["x"])


def test_openai_timeout_then_success(server: FakeOpenAIServer) -> None:
    server.script("embeddings", stall(30.0))
    assert len(make(server, timeout=1.0).embed(["x"])) == 1
    assert server.count("embeddings") == 2  # the stalled request was given up, not waited for


def test_openai_bounded_attempts(server: FakeOpenAIServer) -> None:
    server.script("embeddings", *[server_error()] * 10)
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        make(server, retry=RetryPolicy(max_attempts=3, initial_backoff=0.01)).embed(["x"])
    assert isinstance(info.value.__cause__, openai.InternalServerError)
    assert server.count("embeddings") == 3


def test_openai_client_does_not_retry_by_itself(server: FakeOpenAIServer) -> None:
    server.script("embeddings", server_error())
    with pytest.raises(ProviderError):
        make(server, retry=RetryPolicy(max_attempts=1)).embed(["x"])
    assert server.count("embeddings") == 1


def test_openai_connection_refused_is_bounded() -> None:
    with FakeOpenAIServer() as s:
        url, key = s.base_url, s.api_key
    emb = OpenAIEmbedder(api_key=key, base_url=url, retry=RetryPolicy(max_attempts=2, initial_backoff=0.01))
    with pytest.raises(ProviderError, match="APIConnectionError"):
        emb.embed(["x"])


def test_openai_missing_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="API key"):
        OpenAIEmbedder()
    with pytest.raises(ConfigError):
        OpenAIEmbedder(api_key="  ", base_url="https://api.openai.com/v1")


def test_openai_compatible_server_without_key() -> None:
    with FakeOpenAIServer(api_key=None) as s:
        emb = OpenAIEmbedder("nomic-embed-text", base_url=s.base_url, retry=FAST)
        assert len(emb.embed(["x"])[0]) == 64
        assert s.requests("embeddings")[0].headers["authorization"] == "Bearer graphmem-no-key"


def test_openai_401_is_not_retried(server: FakeOpenAIServer) -> None:
    with pytest.raises(ProviderError, match="rejected the API key"):
        make(server, api_key="sk-wrong").embed(["x"])
    assert server.count("embeddings") == 1
    server.script("embeddings", unauthorized())
    with pytest.raises(ProviderError, match="401"):
        make(server).embed(["x"])
    assert server.count("embeddings") == 2


def test_openai_400_is_not_retried(server: FakeOpenAIServer) -> None:
    server.script("embeddings", bad_request("maximum context length exceeded"))
    with pytest.raises(ProviderError, match="maximum context length"):
        make(server).embed(["x"])
    assert server.count("embeddings") == 1


def test_openai_random_failures_are_absorbed() -> None:
    with FakeOpenAIServer(failure_rate=0.3, seed=7, stall_seconds=1.0) as s:
        emb = make(s, batch_size=2, timeout=0.15, retry=RetryPolicy(max_attempts=10, initial_backoff=0.01))
        texts = [f"t{i}" for i in range(20)]
        vectors = emb.embed(texts)
        assert len(vectors) == 20
        assert s.count("embeddings") > 10  # some requests failed and were retried
        assert emb.requests == 10


def test_cached_openai_sends_each_text_once(server: FakeOpenAIServer) -> None:
    cached = CachedEmbedder(make(server))
    cached.embed(["a", "b", "a"])
    cached.embed(["b", "a", "c"])
    assert [r.body["input"] for r in server.requests("embeddings")] == [["a", "b"], ["c"]]


# --------------------------------------------------------------------------------------------
# factory and optional extra
# --------------------------------------------------------------------------------------------


def test_make_embedder(server: FakeOpenAIServer) -> None:
    assert make_embedder(Settings(embedder="none")) is None
    local = make_embedder(Settings(embedder="local"))
    assert isinstance(local, CachedEmbedder) and isinstance(local.inner, LocalEmbedder)
    assert isinstance(make_embedder(Settings(embedder="local"), cache_size=0), LocalEmbedder)
    with pytest.raises(ConfigError):
        make_embedder(Settings(embedder="local", embedding_model="text-embedding-3-small"))
    with pytest.raises(ConfigError):
        make_embedder(Settings(embedder="local", embedding_dimensions=384))
    with pytest.raises(ConfigError, match="API key"):
        make_embedder(Settings(embedder="openai"))
    emb = make_embedder(
        Settings(
            embedder="openai",
            openai_api_key=SecretStr(server.api_key),
            openai_base_url=server.base_url,
            embedding_dimensions=128,
        ),
        retry=FAST,
    )
    assert emb is not None and (emb.model, emb.dimensions) == ("text-embedding-3-small", 128)
    assert len(emb.embed_one("x")) == 128


def test_sentence_transformers_missing_extra() -> None:
    pytest.importorskip("numpy")
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match=r"graphmem\[sentence-transformers\]"):
            SentenceTransformerEmbedder()
        with pytest.raises(ConfigError):
            make_embedder(Settings(embedder="sentence-transformers"))
    else:  # pragma: no cover - only where the extra is installed
        pytest.skip("sentence-transformers is installed")



def test_a_long_turns_embedding_text_keeps_the_head_of_its_reply_when_asked() -> None:
    from graphmem.embedding import LONG_TURN_CHARS, turn_embedding_text

    reply = "Yes. " + "x" * (LONG_TURN_CHARS + 10)
    assert turn_embedding_text("why?", reply) == f"User: why?\nAssistant: {reply}"  # whole by default
    text = turn_embedding_text("  why? ", reply, ["Edit", "Edit", "Bash"], reply_head_chars=300)
    assert text == f"User: why?\nAssistant: {reply[:300]}\nTools: Edit, Bash"
    assert turn_embedding_text("why?", reply, long_turn_chars=0, reply_head_chars=300) == f"User: why?\nAssistant: {reply}"
    short = "y" * (LONG_TURN_CHARS - 10)  # a short turn is read whole
    assert turn_embedding_text("why?", short, reply_head_chars=300) == f"User: why?\nAssistant: {short}"
    # a long request alone makes the turn long: its reply is cut, the request never is
    q = "q" * LONG_TURN_CHARS
    assert turn_embedding_text(q, short, reply_head_chars=300) == f"User: {q}\nAssistant: {short[:300]}"


def test_each_embedder_says_how_much_of_a_long_reply_it_reads() -> None:
    from graphmem.aio.embedding import OffLoopEmbedder
    from graphmem.embedding import LONG_TURN_REPLY_HEAD_CHARS, E5Embedder, long_reply_head

    e5 = E5Embedder()  # the engine loads on the first embed, not here
    assert long_reply_head(e5) == LONG_TURN_REPLY_HEAD_CHARS == 300
    assert long_reply_head(CachedEmbedder(e5)) == 300  # the wrappers pass it on
    assert long_reply_head(OffLoopEmbedder(CachedEmbedder(e5))) == 300
    assert long_reply_head(LocalEmbedder()) == 0  # USE reads the whole reply
    assert long_reply_head(CachedEmbedder(CountingEmbedder())) == 0
    assert long_reply_head(None) == 0
