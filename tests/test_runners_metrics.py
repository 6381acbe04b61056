"""Run configs name metrics with the evaluator's own parser: aliases resolve, typos fail early."""

from __future__ import annotations

import pytest

from bench.benchmark.config import RunConfig
from bench.benchmark.scoring import expand_metrics
from bench.errors import ConfigError


def test_run_metric_names_are_the_evaluators_canonical_names() -> None:
    assert expand_metrics("NDCG@1,3 precision@10") == ("ndcg@1", "ndcg@3", "p@10")
    assert expand_metrics(["ndcg@1,3,5,10", "map@10", "mrr"]) == (
        "ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@10", "mrr",
    )


def test_equivalent_metric_spellings_give_the_same_config_hash() -> None:
    a = RunConfig.from_dict({"dataset": "synthetic", "metrics": ["NDCG@10", "precision@10"]})
    b = RunConfig.from_dict({"dataset": "synthetic", "metrics": "ndcg@10,p@10"})
    assert a.metrics == b.metrics == ("ndcg@10", "p@10")
    assert a.config_hash() == b.config_hash()


def test_an_unknown_metric_fails_when_the_config_is_loaded_listing_valid_names() -> None:
    with pytest.raises(ConfigError, match=r"unknown metric 'ndgc@10'; valid names: .*ndcg@k"):
        RunConfig.from_dict({"dataset": "synthetic", "metrics": ["ndgc@10"]})
