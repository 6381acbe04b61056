"""A slow, obviously correct alpha-nDCG of one query: ndeval's loops written out in Python.

Follows ``ndeval.c`` (version 4.5, as pyndeval 0.0.8 bundles it: ``src/ndeval.c`` of
github.com/seanmacavaney/pyndeval) line by line: ``idealResult`` (the greedy ideal, ties to the
largest document id), ``computeDCG`` (gains decayed by ``1 - alpha`` per earlier covering
document, discount ``log(2) / log(i + 2)``). No vectorisation, no shared code with
:mod:`bench.metrics.kernels.diversity`.
"""

from __future__ import annotations

import math


def covered(judgments: dict[str, set[int]], doc: str) -> list[int]:
    """The subtopics ``doc`` is relevant to, ascending (ndeval sums ``j = 0..subtopics-1``)."""
    return sorted(judgments.get(doc, set()))


def alpha_dcg_list(ranking: list[str], judgments: dict[str, set[int]], alpha: float,
                   k: int | None, reciprocal: bool = False) -> float:
    """alpha-DCG@k of ``ranking`` (document ids, best first); ``judgments``: document ->
    subtopics it is relevant to; ``reciprocal``: the discount 1/(i + 1) (ndeval computeERR)."""
    gain_of: dict[int, float] = {}
    total = 0.0
    for i, doc in enumerate(ranking):
        if k is not None and i >= k:
            break
        score = 0.0
        for j in covered(judgments, doc):
            g = gain_of.get(j, 1.0)
            score += g
            gain_of[j] = g * (1.0 - alpha)
        total += score / (i + 1.0) if reciprocal else score * (math.log(2.0) / math.log(i + 2.0))
    return total


def ideal_ranking(judgments: dict[str, set[int]], alpha: float) -> list[str]:
    """ndeval's greedy ideal: at each rank the unplaced document of largest current gain, ties
    to the largest document id; documents relevant to no subtopic never add gain (left out)."""
    left = sorted(d for d, subs in judgments.items() if subs)
    gain_of: dict[int, float] = {}
    out: list[str] = []
    while left:
        where = -1
        best = 0.0
        for i, doc in enumerate(left):  # ascending document id, as ndeval's list
            score = 0.0
            for j in covered(judgments, doc):
                score += gain_of.get(j, 1.0)
            if where == -1 or score > best or (score == best and doc > left[where]):
                best, where = score, i
        doc = left.pop(where)
        out.append(doc)
        for j in covered(judgments, doc):
            gain_of[j] = gain_of.get(j, 1.0) * (1.0 - alpha)
    return out


def ranked(run: dict[str, float], ties: str) -> list[str]:
    """Documents by score descending, ties by document id (``docno_desc`` / ``docno_asc``)."""
    if ties == "docno_asc":
        return [d for d, _ in sorted(run.items(), key=lambda x: (-x[1], x[0]))]
    by_doc = sorted(run.items(), key=lambda x: x[0], reverse=True)
    return [d for d, _ in sorted(by_doc, key=lambda x: -x[1])]  # stable: docno descending


def alpha_ndcg(run: dict[str, float], judgments: dict[str, set[int]], alpha: float,
               k: int | None, ties: str = "docno_desc", reciprocal: bool = False) -> float:
    """alpha-nDCG@k of one query (0 when no document is relevant to a subtopic, as ndeval);
    ``reciprocal``: nERR-IA@k."""
    ideal = alpha_dcg_list(ideal_ranking(judgments, alpha), judgments, alpha, k, reciprocal)
    if ideal == 0.0:
        return 0.0
    return alpha_dcg_list(ranked(run, ties), judgments, alpha, k, reciprocal) / ideal


def graded_alpha_dcg(ranked_labels: list[list[float]], alpha: float, k: int | None) -> float:
    """TF-Ranking's alpha-DCG@k of one list already in rank order (``metrics_impl.py``
    ``_alpha_dcg_gain_fn``): document ``i`` gains ``sum_j l_ij (1 - alpha)^(sum of l_hj above
    it)``, discounted by ``1 / log2(i + 2)``; loops, ``math.pow``, no NumPy."""
    above: dict[int, float] = {}
    total = 0.0
    for i, labels in enumerate(ranked_labels):
        if k is not None and i >= k:
            break
        gain = 0.0
        for j, v in enumerate(labels):
            gain += v * math.pow(1.0 - alpha, above.get(j, 0.0))
            above[j] = above.get(j, 0.0) + v
        total += gain / math.log2(i + 2.0)
    return total
