"""Slow oracles of the ranked components (``bench.metrics.kernels.ranked``), one query at a time.

Each query is ordered with Python's ``sorted`` under the tie rule; under ``ties="average"`` a
component is the plain mean over *every* order of every tied group (``itertools.permutations``),
so tied groups must stay small. Each sum is the textbook loop over ranks of its source:
trec_eval 9.0.8 (``m_Rprec.c``, ``m_Rprec_mult.c``, ``m_iprec_at_recall.c``, ``m_infAP.c``),
Moffat & Zobel, TOIS 27(1) 2008 (RBP and its residual), cornac (NCRR's numerator), the
Mann-Whitney pair count (sklearn ``roc_auc_score``). Nothing is shared with the code under test.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: trec_eval's ``INFAP_EPSILON`` (``trec_eval.h``).
EPS = 0.00001


@dataclass(frozen=True)
class Doc:
    """One scored row: its score, relevance, judged non-relevance, unjudged, in the pool
    (unjudged there: a negative judgment), gain (pessimistic / optimistic ties) and tie key."""

    score: float
    rel: bool
    non: bool
    unj: bool
    pool: bool
    gain: float
    key: int


def orders(docs: Sequence[Doc], ties: str) -> list[list[Doc]]:
    """Every order the tie rule allows (one, or every order of every tied group under
    ``average``), each equally likely."""
    idx = range(len(docs))
    if ties == "pessimistic":
        keyed = sorted(idx, key=lambda i: (-docs[i].score, docs[i].gain, i))
    elif ties == "optimistic":
        keyed = sorted(idx, key=lambda i: (-docs[i].score, -docs[i].gain, i))
    elif ties in ("stable", "average"):
        keyed = sorted(idx, key=lambda i: (-docs[i].score, i))
    else:  # random, docno_desc, docno_asc, row_desc: the tie key the evaluator is given
        keyed = sorted(idx, key=lambda i: (-docs[i].score, docs[i].key, i))
    if ties != "average":
        return [[docs[i] for i in keyed]]
    groups = [list(g) for _, g in itertools.groupby(keyed, key=lambda i: docs[i].score)]
    assert math.prod(math.factorial(len(g)) for g in groups) <= 20_000, "tied groups too large"
    return [[docs[i] for part in combo for i in part]
            for combo in itertools.product(*(itertools.permutations(g) for g in groups))]


def component(name: str, param: float | None, k: int | None, ranked: Sequence[Doc],
              r_total: float) -> float:
    """One component of one ranked query (``k``: the cutoff, ``None`` the whole list)."""
    n = len(ranked)
    top = n if k is None else min(k, n)
    rel = [d.rel for d in ranked]
    if name == "fall":
        return float(sum(d.non for d in ranked[:top]))
    if name == "crr":
        return sum(1.0 / (i + 1) for i in range(top) if rel[i])
    if name == "rprec":  # the relevant documents among the first min(R, k) (trec_eval -M k)
        cut = r_total if k is None else min(r_total, k)
        return float(sum(rel[i] for i in range(n) if i < cut))
    if name in ("rbp", "rbp_residual"):
        assert param is not None
        hit = rel if name == "rbp" else [d.unj for d in ranked]
        return sum((1 - param) * param**i for i in range(top) if hit[i])
    if name == "auc":  # pairs of a relevant and a non-relevant row, ordered right; tie 1/2
        pos = [d.score for d in ranked if d.rel]
        neg = [d.score for d in ranked if not d.rel]
        return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    if name == "auc_pairs":
        return float(sum(rel) * (n - sum(rel)))
    if name == "infap":
        return _infap(ranked)
    assert param is not None
    cut_c = int(param * r_total + 0.9)  # C's (long)(x R + 0.9)
    if name == "rprec_mult":
        return float(sum(rel[:cut_c]))
    if name == "iprec":
        seen = 0
        best = 0.0
        for i in range(n):
            if rel[i]:
                seen += 1
                if seen >= max(cut_c, 1):
                    best = max(best, seen / (i + 1))
        return best if seen >= max(cut_c, 1) else 0.0
    raise ValueError(name)


def _infap(ranked: Sequence[Doc]) -> float:
    """m_infAP.c: over the relevant documents at 0-based rank j, 1 at j = 0, else
    1/(j+1) + (j/(j+1)) ((rel+non+pool above)/j) ((rel above + eps)/(rel+non above + 2 eps))."""
    total = 0.0
    a = b = u = 0
    for j, d in enumerate(ranked):
        if d.rel:
            total += 1.0 if j == 0 else 1 / (j + 1) + (j / (j + 1)) * ((a + b + u) / j) * (
                (a + EPS) / (a + b + 2 * EPS))
        a, b, u = a + d.rel, b + d.non, u + d.pool
    return total


def expected(name: str, param: float | None, k: int | None, docs: Sequence[Doc],
             r_total: float, ties: str) -> float:
    """The component's mean over the orders the tie rule allows."""
    vals = [component(name, param, k, o, r_total) for o in orders(docs, ties)]
    return sum(vals) / len(vals)
