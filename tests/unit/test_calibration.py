"""Cosine thresholds chosen on the local USE model keep their meaning under e5 (whose unrelated
sentences score about 0.8): :func:`cosine_for` and the fact settings read for a model."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.embedding import E5Embedder, query_vector
from graphmem.embedding.calibration import cosine_for
from graphmem.facts.tuning import DEFAULT_TUNING, _for_model

E5 = "multilingual-e5-small-q4"


def test_models_without_a_table_keep_the_reference_values() -> None:
    for model in (None, "use-multilingual-v3", "text-embedding-3-small"):
        assert cosine_for(model, 0.85) == 0.85 and cosine_for(model, 0.3, "query") == 0.3


def test_the_e5_table_is_monotone_and_bounded() -> None:
    refs = [x / 100 for x in range(-100, 101)]
    for kind in ("passages", "query"):
        out = [cosine_for(E5, r, kind) for r in refs]  # type: ignore[arg-type]
        assert out == sorted(out) and out[0] >= -1.0 and out[-1] == 1.0
    assert cosine_for(E5, 0.85) == pytest.approx(0.969)
    assert cosine_for(E5, 0.55) == pytest.approx((0.884 + 0.907) / 2)  # linear between knots
    assert cosine_for(E5, 0.5, "query") == pytest.approx(0.859)


def test_fact_settings_read_for_e5_are_in_its_cosines() -> None:
    t = _for_model(DEFAULT_TUNING, E5)
    assert t.dedup_threshold == pytest.approx(0.969) and t.injection_dedup_threshold == pytest.approx(0.969)
    assert t.refine_min_similarity == pytest.approx(0.907)
    assert t.forget_min_score == pytest.approx(0.859) and t.injection_min_score == pytest.approx(0.806)
    assert t.search_limit == DEFAULT_TUNING.search_limit
    assert _for_model(DEFAULT_TUNING, None) is DEFAULT_TUNING


def test_with_e5_distinct_facts_stay_below_the_dedup_and_forget_thresholds() -> None:
    e5 = E5Embedder()
    facts = ["Caroline attended an LGBTQ support group.", "Melanie painted a lake sunrise last year.",
             "The staging database is shop_staging.", "The billing client retries three times.",
             "Ines moved to Porto."]
    v = np.asarray(e5.embed(facts))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pairs = (v @ v.T)[np.triu_indices(len(facts), 1)]
    assert pairs.max() < cosine_for(E5, DEFAULT_TUNING.dedup_threshold)
    q = np.asarray(query_vector(e5, "billing client retries"))
    scores = v @ (q / np.linalg.norm(q))
    above = [f for f, s in zip(facts, scores, strict=True) if s >= cosine_for(E5, DEFAULT_TUNING.forget_min_score, "query")]
    assert above == ["The billing client retries three times."]
    assert min(scores) >= DEFAULT_TUNING.forget_min_score  # the raw setting would have forgotten them all
