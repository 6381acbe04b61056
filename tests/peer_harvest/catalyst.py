"""catalyst (catalyst-team/catalyst) catalyst/metrics/functional/tests: ndcg, dcg, mrr,
average precision, MAP and hit rate on ``[batch, slate]`` tensors (one row per query).
"""

from __future__ import annotations

import math

from peer_harvest import Case, descending, lists

REPO = "catalyst-team/catalyst"
BASE = "catalyst/metrics/functional/tests/"


def _case(path: str, test: str, metric: str, labels: tuple[tuple[float, ...], ...],
          scores: tuple[tuple[float, ...], ...], profile: str = "catalyst", *,
          mean: float | None = None, per_query: tuple[float, ...] | None = None,
          tol: float = 1e-6) -> Case:
    return Case("catalyst", REPO, BASE + path, test, metric, profile, labels=labels,
                scores=scores, mean=mean, per_query=per_query, tol=tol)


_STANFORD = lists((1, 0, 1, 0, 0, 1, 0, 0, 1, 1), (0, 1, 0, 0, 1, 0, 1, 0, 0, 0))
_S10 = lists(descending(10), descending(10))
_TWO = lists((0, 0, 1, 1), (0, 0, 1, 1))
_TWO_SCORES = lists((4, 2, 3, 1), (1, 2, 3, 4))
_NDCG2 = 1.0 / (1.0 + 1 / math.log2(3))

CASES: list[Case] = [
    # dcg with gain_function="linear_rank": gain l, discount 1 at rank 1 then 1/log2(rank)
    _case("test_ndcg.py", "test_dcg", "dcg", lists((2, 1, 2, 0)), lists(descending(4)),
          "catalyst-linear", mean=4.261, tol=0.05),
    _case("test_ndcg.py", "test_dcg", "dcg", lists((2, 2, 1, 0)), lists(descending(4)),
          "catalyst-linear", mean=4.631, tol=0.05),
    _case("test_ndcg.py", "test_dcg", "dcg", lists((3, 2, 3, 0, 0, 1, 2, 2, 3, 0)),
          lists(descending(10)), "catalyst-linear", mean=9.61, tol=0.05),
    _case("test_ndcg.py", "test_zero_ndcg", "ndcg@1", lists((0, 0, 0, 0, 0, 0, 1)),
          lists(descending(7)), mean=0.0),
    _case("test_ndcg.py", "test_zero_ndcg", "ndcg@3", lists((0, 0, 0, 0, 0, 0, 1)),
          lists(descending(7)), mean=0.0),
    _case("test_ndcg.py", "test_zero_ndcg", "ndcg@7", lists((0, 0, 0, 0, 0, 0, 1)),
          lists(descending(7)), mean=0.3, tol=0.05),
    _case("test_ndcg.py", "test_sample_ndcg", "ndcg@2", lists((1, 0, 1)),
          lists((0.5, 0.2, 0.1)), mean=_NDCG2, tol=1e-6),
    _case("test_ndcg.py", "test_sample_ndcg", "ndcg@2", lists((1, 0, 1), (1, 0, 1)),
          lists((0.5, 0.2, 0.1), (0.5, 0.2, 0.1)), mean=_NDCG2, tol=1e-6),
    _case("test_ndcg.py", "test_sample_ndcg", "ndcg@1", lists((1, 0, 1), (1, 0, 1)),
          lists((0.5, 0.2, 0.1), (0.5, 0.2, 0.1)), mean=1.0, tol=1e-6),
    # reciprocal_rank (per query) and mrr (the mean)
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@2", lists((1, 0)), lists((0.5, 0.2)),
          per_query=(1.0,), tol=0.0),
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@2", lists((0, 1)), lists((0.5, 0.2)),
          per_query=(0.5,), tol=0.0),
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@2", lists((0, 1)), lists((0.2, 0.5)),
          per_query=(1.0,), tol=0.0),
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@2", lists((0, 1), (0, 1)),
          lists((0.2, 0.5), (0.5, 0.2)), per_query=(1.0, 0.5), tol=0.0),
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@3", _TWO, _TWO_SCORES,
          per_query=(0.5, 1.0), tol=0.0),
    _case("test_mrr.py", "test_reciprocal_rank", "mrr@1", _TWO, _TWO_SCORES,
          per_query=(0.0, 1.0), tol=0.0),
    _case("test_mrr.py", "test_mrr", "mrr@1", _TWO, _TWO_SCORES, mean=0.5, tol=0.0),
    _case("test_mrr.py", "test_mrr", "mrr@3", _TWO, _TWO_SCORES, mean=0.75, tol=0.0),
    # average precision per query (avg_precision) and MAP@k (mean_avg_precision)
    _case("test_average_precision.py", "test_avg_precision", "map@4",
          lists((1, 1, 1, 1)), lists((0.5, 0.2, 0.3, 0.8)), per_query=(1.0,), tol=0.0),
    _case("test_average_precision.py", "test_avg_precision", "map@4",
          lists((1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)),
          lists((0.5, 0.2, 0.3, 0.8), (0.5, 0.2, 0.3, 0.8), (0.5, 0.2, 0.3, 0.8)),
          per_query=(1.0, 1.0, 1.0), tol=0.0),
    _case("test_average_precision.py", "test_avg_precision", "map@4",
          lists((0, 0, 0, 0)), lists((0.5, 0.2, 0.3, 0.8)), per_query=(0.0,), tol=0.0),
    _case("test_average_precision.py", "test_avg_precision", "map@4",
          lists((0, 1, 1, 1), (0, 1, 0, 0)), _TWO_SCORES, per_query=(0.6389, 0.333), tol=1e-3),
    _case("test_average_precision.py", "test_avg_precision", "map@10", _STANFORD, _S10,
          per_query=(0.6222, 0.4429), tol=1e-3),
    _case("test_average_precision.py", "test_mean_avg_precision", "map@1", _STANFORD, _S10,
          mean=0.5, tol=1e-3),
    _case("test_average_precision.py", "test_mean_avg_precision", "map@3", _STANFORD, _S10,
          mean=0.6675, tol=1e-3),
    _case("test_average_precision.py", "test_mean_avg_precision", "map@5", _STANFORD, _S10,
          mean=0.6425, tol=1e-3),
    _case("test_average_precision.py", "test_mean_avg_precision", "map@10", _STANFORD, _S10,
          mean=0.5325, tol=1e-3),
    _case("test_average_precision.py", "test_binary_average_precision_base", "map",
          lists((0, 0, 1, 1)), lists((0.1, 0.4, 0.35, 0.8)), mean=0.8333, tol=1e-3),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test2]", "map",
          lists((0, 1, 0, 1)), lists((0.1, 0.2, 0.3, 4)), mean=(1 + 2 / 3) / 2, tol=0.01),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test4]", "map",
          lists((0, 1, 0, 1)), lists((4, 3, 2, 1)), mean=(1 / 2 + 2 / 4) / 2, tol=0.01),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test6]", "map",
          lists((0, 1, 0, 1)), lists((1, 4, 2, 3)), mean=(1 + 2 / 2) / 2, tol=0.01),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test8]", "map",
          lists((0, 0, 0, 0)), lists((1, 4, 2, 3)), mean=0.0, tol=0.01),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test10]", "map",
          lists((1, 1, 0)), lists((3, 1, 2)), mean=(1 + 2 / 3) / 2, tol=0.01),
    _case("test_average_precision.py", "test_binary_average_precision_weighted[test12]", "map",
          lists((0, 1, 0, 1), (0, 1, 0, 1)), lists((0.1, 0.2, 0.3, 4), (4, 3, 2, 1)),
          per_query=((1 + 2 / 3) / 2, (1 / 2 + 2 / 4) / 2), tol=0.01),
    # hitrate as this test asserts it: hits in the top k over k (0.5 at k=2 with one hit)
    _case("test_hitrate.py", "test_hitrate", "p@1", lists((1, 0)), lists((0.5, 0.2)),
          mean=1.0, tol=0.0),
    _case("test_hitrate.py", "test_hitrate", "p@2", lists((1, 0)), lists((0.5, 0.2)),
          mean=0.5, tol=0.0),
    _case("test_hitrate.py", "test_hitrate", "p@2", lists((0, 0)), lists((0.5, 0.2)),
          mean=0.0, tol=0.0),
]
