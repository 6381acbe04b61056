"""The default evaluation allocates a few bytes per document beyond its inputs (tracemalloc's
peak, deterministic: not a timing). A convention that needs per-row arrays must build them only
under the profile that asks for it: torchmetrics' score rule once built three per-row arrays on
every evaluation (17 bytes per document: 16.4 instead of 5.0)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from bench.metrics import evaluate

METRICS = "ndcg@1,3,5,10,map@10,mrr,p@10,recall@10"


@pytest.mark.parametrize(("profile", "bound"), [("ltrbench", 8.0), ("lightgbm", 8.0),
                                               ("trec_eval", 14.0)])  # + float32 scores, ties
def test_the_default_metrics_allocate_a_few_bytes_per_document(profile: str, bound: float) -> None:
    rng = np.random.default_rng(0)
    sizes = rng.integers(30, 53, 20_000)
    n = int(sizes.sum())
    labels = rng.integers(0, 5, n).astype(np.float64)
    scores = rng.random(n)
    evaluate(labels, scores, group=sizes, metrics=METRICS, profile=profile)  # compiled, cached
    tracemalloc.start()
    try:
        evaluate(labels, scores, group=sizes, metrics=METRICS, profile=profile)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / n <= bound, f"{profile}: {peak / n:.1f} bytes per document"
