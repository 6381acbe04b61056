"""alpha-DCG of a ranking and of ndeval's greedy ideal ranking, for every query at once (NumPy).

Clarke et al., "Novelty and diversity in information retrieval evaluation", SIGIR 2008,
section 4: a document at 0-based position ``i`` gains, for each subtopic ``j`` it is relevant
to, ``(1 - alpha)^c_j``, ``c_j`` the documents above it relevant to ``j``; alpha-DCG@k sums the
gains discounted by ``1 / log2(i + 2)`` over ``i < k``. The ideal ranking (alpha-nDCG's
denominator) is NP-hard; ndeval computes it greedily (``ndeval.c`` ``idealResult``, version
4.5 as pyndeval 0.0.8 bundles it, ``src/ndeval.c`` of github.com/seanmacavaney/pyndeval): at
each rank the document of largest current gain among those not yet placed, a tie going to the
**largest** document id (``strcmp(docno_i, docno_where) > 0`` while scanning the qrels'
documents in ascending id order), then every subtopic it covers has its gain multiplied by
``1 - alpha``. This module does the same, every query in one vectorised step per rank.

Inputs are positive (relevant) judgments as triples: the query ``q``, the position (run) or the
candidate document (ideal), and the subtopic's **slot**, a global index of (query, subtopic)
pairs numbered in ascending subtopic order within each query. The arithmetic follows ndeval's
order so that ties in the greedy step are decided on the same floating-point numbers: a
subtopic's gain is ``1.0`` multiplied by ``1 - alpha`` once per covering document (a running
product, not ``pow``); a document's gain sums its subtopics in ascending subtopic order; DCG
adds the positions in rank order. The discount is ndeval's ``log(2) / log(i + 2)``
(``discount``).

Lines of ``src/ndeval.c`` at pyndeval commit ``acde21d``: ``DEPTH`` 20 and ``ALPHA`` 0.5
``:69-70``, ``idealResult`` ``:367-415`` (the tie rule ``:400``), ``discount`` ``:583``,
``computeERR`` ``:613-658``, ``computeDCG`` ``:667-713`` (its "ideal ideal" division skips
rank 1: ``for (i = 1; ...)`` ``:703``, ``:711``), ``renormalize`` ``:1159``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
Index = NDArray[np.int64]


def discount(size: int) -> Array:
    """``log(2) / log(i + 2)`` for ``i = 0..size-1`` (ndeval ``discount``; 1 at ``i = 0``)."""
    out: Array = np.log(2.0) / np.log(np.arange(size, dtype=np.float64) + 2.0)
    return out


def weigh(score: Array, pos: Index, kind: str) -> Array:
    """A position's gain discounted: ``score * log(2) / log(i + 2)`` (``"log2"``: alpha-DCG,
    ndeval ``computeDCG``) or ``score / (i + 1)`` (``"reciprocal"``: ERR-IA, ndeval
    ``computeERR``, a division as there)."""
    if kind == "reciprocal":
        out: Array = score / (pos + 1.0)
        return out
    return score * discount(int(pos.max(initial=0)) + 1)[pos]


def gain_powers(alpha: float, count: int) -> Array:
    """``[1, b, b*b, ...]`` (``count + 1`` entries), ``b = 1 - alpha``, as running products."""
    steps = np.full(count + 1, 1.0 - alpha)
    steps[0] = 1.0
    return np.cumprod(steps)


def run_alpha_dcg(q: Index, pos: Index, slot: Index, n_q: int, alpha: float,
                  ks: tuple[int | None, ...], kind: str = "log2",
                  value: Array | None = None) -> dict[int | None, Array]:
    """alpha-DCG@k per query of the ranked run, for each ``k`` in ``ks`` (``None``: the whole
    list). ``q``, ``pos``, ``slot``: one entry per (retrieved document, subtopic it is relevant
    to), ``pos`` its 0-based rank in its query; ``kind``: the discount (:func:`weigh`).

    ``value``: graded subtopic labels, one per entry (``None``: every entry 1, ndeval's binary
    judgments). Then a document gains ``l * (1 - alpha)^C`` per subtopic, ``C`` the sum of the
    labels above it for that subtopic: TF-Ranking ``_alpha_dcg_gain_fn``
    (``tensorflow_ranking/python/metrics_impl.py:36-60``: ``cumsum(labels, exclusive=True)``,
    ``labels * pow(1 - alpha, cum)``), equal to the binary form when every label is 1."""
    out: dict[int | None, Array] = {}
    if not q.shape[0]:
        return {k: np.zeros(n_q) for k in ks}
    # c_j: how many documents above this one cover the same subtopic (rank within (slot, pos))
    by_slot = np.lexsort((pos, slot))
    s_sorted = slot[by_slot]
    first = np.r_[True, s_sorted[1:] != s_sorted[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(s_sorted.shape[0]), 0))
    if value is None:
        seen = np.empty_like(pos)
        seen[by_slot] = np.arange(s_sorted.shape[0]) - start
        gain = gain_powers(alpha, int(seen.max()))[seen]
    else:  # the labels above, summed per subtopic (exclusive), as TF-Ranking's cumsum
        v_sorted = value[by_slot]
        upto = np.cumsum(v_sorted) - v_sorted
        above = np.empty_like(value)
        above[by_slot] = upto - upto[start]
        gain = value * np.power(1.0 - alpha, above)
    # per (query, position): its subtopics' gains summed in ascending subtopic order
    order = np.lexsort((slot, pos, q))
    cell_key = q[order] * (int(pos.max()) + 1) + pos[order]
    cells, cell_of = np.unique(cell_key, return_inverse=True)
    score = np.bincount(cell_of.ravel(), weights=gain[order],
                        minlength=cells.shape[0]).astype(np.float64)
    cell_pos = cells % (int(pos.max()) + 1)
    cell_q = cells // (int(pos.max()) + 1)
    term = weigh(score, cell_pos, kind)
    for k in ks:  # cells are in (query, position) order: each query's sum in rank order
        keep = slice(None) if k is None else cell_pos < k
        out[k] = np.bincount(cell_q[keep], weights=term[keep], minlength=n_q).astype(np.float64)
    return out


def ideal_alpha_dcg(cand_q: Index, cand_key: Index, tri_cand: Index, tri_slot: Index,
                    n_q: int, n_slots: int, alpha: float, ks: tuple[int | None, ...],
                    kind: str = "log2", tri_value: Array | None = None
                    ) -> dict[int | None, Array]:
    """alpha-DCG@k per query of ndeval's greedy ideal ranking (see the module docstring).

    ``cand_q``, ``cand_key``: per candidate document (a document relevant to a subtopic of its
    query), its query and its document id's rank in ascending byte order (ties go to the
    largest); ``tri_cand``, ``tri_slot``: one entry per (candidate, subtopic it is relevant to),
    sorted by candidate then slot (the order the gains are summed in); ``kind``: the discount
    (:func:`weigh`); ``tri_value``: graded labels per entry (``None``: 1, ndeval), a
    subtopic's gain then multiplied by ``(1 - alpha)^l`` per covering document of label ``l``
    (the ideal of :func:`run_alpha_dcg`'s graded form, greedy as ndeval's)."""
    n_c = int(cand_q.shape[0])
    per_q = np.bincount(cand_q, minlength=n_q)
    depth = int(per_q.max(initial=0))
    finite = [k for k in ks if k is not None]
    if finite and None not in ks:
        depth = min(depth, max(finite))
    sub_gain = np.ones(n_slots)
    placed = np.zeros(n_c, dtype=bool)
    running = np.zeros(n_q)
    out = {k: np.zeros(n_q) for k in ks}
    b = 1.0 - alpha
    for rank in range(depth):
        weight = sub_gain[tri_slot] if tri_value is None else tri_value * sub_gain[tri_slot]
        score = np.bincount(tri_cand, weights=weight, minlength=n_c).astype(np.float64)
        open_c = np.flatnonzero(~placed)
        # the last of each query after sorting by (query, score, key): the best, ties to the
        # largest document id
        by = open_c[np.lexsort((cand_key[open_c], score[open_c], cand_q[open_c]))]
        last = np.r_[cand_q[by][1:] != cand_q[by][:-1], True]
        pick = by[last]
        placed[pick] = True
        running[cand_q[pick]] += weigh(score[pick], np.full(pick.shape[0], rank), kind)
        now = np.zeros(n_c, dtype=bool)
        now[pick] = True
        if tri_value is None:
            sub_gain[tri_slot[now[tri_cand]]] *= b
        else:
            hit = now[tri_cand]
            sub_gain[tri_slot[hit]] *= np.power(b, tri_value[hit])
        for k in ks:
            if k is not None and k == rank + 1:
                out[k] = running.copy()
    for k in ks:
        if k is None or k > depth:
            out[k] = running.copy()
    return out


def run_precision_ia(q: Index, pos: Index, n_q: int, ks: tuple[int | None, ...],
                     group: tuple[Index, Index] | None = None) -> dict[int | None, Array]:
    """The numerator of Precision-IA@k per query: the (document, subtopic) pairs of the top
    ``k`` whose document is relevant to the subtopic (ndeval ``computePrecision``, ``count``;
    TF-Ranking ``PrecisionIAMetric``: ``sum(sorted_labels >= 1)`` over the top ``topn``).

    ``q``, ``pos``: one entry per relevant (document, subtopic) pair, its query and 0-based
    rank. ``group``: where ties are averaged, each entry's tied group as (first position,
    size); an entry then counts with the share of its group's places that fall in the top
    ``k`` (the expectation over the group's orders: every order is equally likely)."""
    out: dict[int | None, Array] = {}
    for k in ks:
        if k is None:
            share = np.ones(q.shape[0])
        elif group is None:
            share = (pos < k).astype(np.float64)
        else:
            first, size = group
            share = np.clip((k - first) / size, 0.0, 1.0)
        out[k] = np.bincount(q, weights=share, minlength=n_q).astype(np.float64)
    return out
