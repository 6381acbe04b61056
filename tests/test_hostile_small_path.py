"""Hostile inputs for the small-input path: the interpreted kernel must match the compiled one.

Each case is an input chosen to make two implementations of the same arithmetic part ways:
signed zeros and float32 rounding that create ties, denormal and huge scores, the largest
label table, queries of one document, all-blank queries, a tied group straddling every cutoff,
tie keys that disagree with row order, cutoffs beyond the query, judged documents the run
misses. The golden numbers are the compiled kernel's (``backend="numba"``), compared with ``==``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bench.metrics import evaluate, get_profile

METRICS = ("ndcg@1,2,3,50 ndcg dcg@2 map@1,3 map mrr mrr@2 p@1,3,50 p recall@2 err@3 err "
           "hits@1,2 hits rprec bpref")


def _case(labels, scores, sizes):  # type: ignore[no-untyped-def]
    return (np.asarray(labels, dtype=np.float64), np.asarray(scores, dtype=np.float64),
            np.asarray(sizes, dtype=np.int64))


rng = np.random.default_rng(20)
CASES = {
    "signed zeros tie": _case([1, 0, 2, 1], [0.0, -0.0, 0.0, -0.0], [4]),
    "float32 rounding ties": _case([2, 0, 1], [1.0, 1.0 + 1e-12, 1.0 - 1e-12], [3]),
    "denormal scores": _case([0, 1, 2, 1], [5e-324, 1e-320, 0.0, 5e-324], [4]),
    "huge scores": _case([1, 0, 3], [1e308, -1e308, 1.7976931348623157e308], [3]),
    "largest labels": _case([30, 0, 16, 29, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [5]),
    "single-document queries": _case([1, 0, 3, 2], [0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1]),
    "all blank": _case([0, 0, 0, 0, 0], [3.0, 2.0, 1.0, 1.0, 0.0], [2, 3]),
    "one tied group": _case([0, 1, 0, 2, 0, 1, 3], [1.0] * 7, [7]),
    "group straddling cutoffs": _case([0, 0, 1, 2, 0, 1, 0, 2], [9, 8, 7, 7, 7, 7, 7, 1], [8]),
    "relevant only at the end": _case([0] * 29 + [1], np.arange(30.0)[::-1], [30]),
    "long query with ties": _case(rng.integers(0, 4, 500), np.round(rng.normal(size=500), 0),
                                  [500]),
    "many short queries": _case(rng.integers(0, 3, 600), rng.integers(0, 3, 600).astype(float),
                                [3] * 200),
    "ties beyond the candidates": _case([1, 0, 0, 0, 2, 2, 0, 1],
                                        [9.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5], [8]),
}
TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc", "row_desc")


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("case", CASES)
def test_the_interpreted_kernel_matches_the_compiled_one(case: str, ties: str) -> None:
    y, s, g = CASES[case]
    metrics = METRICS if y.max() <= 4 else METRICS.replace("err@3 err ", "")  # ERR: grades <= 4
    names = ("ltrbench", "trec_eval", "lightgbm") if ties == "stable" else ("ltrbench", "trec_eval")
    for name in names:
        prof = dataclasses.replace(get_profile(name), ties=ties)
        if name == "lightgbm":  # float32 scores: rounding makes new ties
            prof = dataclasses.replace(prof, score_dtype="float32")
        # unique (a document at most once per query) and not in row order: 10007 is prime
        docno = np.asarray([f"d{(i * 7919) % 10007:05d}" for i in range(len(y))])
        a, b = (evaluate(y, s, group=g, metrics=metrics, profile=prof, backend=be,
                         per_query=True, docno=docno) for be in ("numba", "python"))
        assert a.per_query is not None
        assert b.per_query is not None
        for col in a.per_query.columns:
            x, z = a.per_query[col].to_numpy(), b.per_query[col].to_numpy()
            assert np.array_equal(x, z, equal_nan=True), (name, col)
        assert a.diagnostics.n_queries_with_ties_in_topk == b.diagnostics.n_queries_with_ties_in_topk
        assert a.diagnostics.n_blank == b.diagnostics.n_blank
