"""Position and pair sums over the ranking of every query at once: ARP and OPA (NumPy, both backends).

:func:`bench.metrics.kernels.judged.judged_components` orders every query once (score
descending, then the profile's tie rule, equal scores adjacent) and calls these with the rows in
that order; ``y_i`` is the label of the row at 1-based position ``i`` (the raw label, not its
gain: both tools below weigh positions by the label itself):

==============  ================================================================================
``arp``         ``sum_i i y_i``: ARP's numerator (pytorchltr ``pytorchltr/evaluation/arp.py``
                lines 32-42, ``srp = sum(arange * rel_sort)``; TF-Ranking ``metrics_impl.py``
                at 053cdcd, ``ARPMetric`` lines 509-536: ``sum(position * weighted_labels)``)
``arp_labels``  ``sum_i y_i``: its denominator (``nrp``; TF-Ranking's per-list weight)
``opa``         the pairs ``y_i > y_j`` whose higher-labelled document is ranked above the other
                (TF-Ranking ``metrics_impl.py`` ``OPAMetric`` lines 708-742:
                ``sum I[y_i > y_j] I[s_i > s_j]``)
``opa_pairs``   the pairs ``y_i > y_j`` of the query (pairs of equal labels never count)
==============  ================================================================================

**Ties.** ARP's sum is linear in the positions, so under ``ties="average"`` it takes each row's
expected position (its tied group's mean position): the exact expectation over every order of
the group (McSherry & Najork, ECIR 2008); under any other tie rule the order it makes.
OPA's rule for a pair of tied scores is ``rule``: ``"half"`` (the expectation over tied orders,
1/2: ``ties="average"`` with ``pair_ties="rank"``), ``"order"`` (the order the tie rule makes:
any other tie rule with ``pair_ties="rank"``) or ``"wrong"`` (0 whatever the order: TF-Ranking,
``pair_pred_diff > 0`` is false for equal scores, ``metrics_impl.py`` line 732;
``pair_ties="wrong"``).

**Cost.** ARP is one pass. OPA loops over the distinct label values ``L`` (not over queries):
one cumulative count per value, ``O(N L)`` for ``N`` rows, while ``L`` is at most
:data:`LEVEL_PASSES_MAX` (graded labels have a handful); above (real-valued labels), a bottom-up
merge count over every query at once, ``O(N log N log n)`` for a longest query of ``n`` rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, cast

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
#: How OPA counts a pair of documents with equal scores (see the module docstring).
PairRule = Literal["order", "half", "wrong"]
#: The components of this module.
PAIR_COMPONENTS = ("arp", "arp_labels", "opa", "opa_pairs")


def score_groups(gidx: NDArray[np.int64], ss: Array, tied: bool
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per row, the first row of its group and one past its last: rows of one query with equal
    scores (``tied``), else each row alone. ``ss`` in ranking order."""
    n_rows = ss.shape[0]
    if not tied:
        start = np.arange(n_rows, dtype=np.int64)
        return start, start + 1
    new = np.ones(n_rows, dtype=bool)
    if n_rows > 1:
        new[1:] = (gidx[1:] != gidx[:-1]) | (ss[1:] != ss[:-1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n_rows)
    grp = np.repeat(np.arange(starts.shape[0], dtype=np.int64), ends - starts)
    return starts[grp], ends[grp]


def arp_sums(gidx: NDArray[np.int64], ss: Array, ys: Array, offsets: NDArray[np.int64],
             average: bool) -> tuple[Array, Array]:
    """Per query ``(sum_i i y_i, sum_i y_i)``, ``i`` the 1-based position (under ``average``
    ties the mean position of the row's tied group). Rows in ranking order."""
    n_q = offsets.shape[0] - 1
    g_start, g_end = score_groups(gidx, ss, average)
    first = offsets[:-1][gidx]
    pos = (g_start + g_end + 1).astype(np.float64) / 2.0 - first  # mean of start+1 .. end
    with np.errstate(over="ignore", invalid="ignore"):
        num = np.bincount(gidx, weights=ys * pos, minlength=n_q)
        den = np.bincount(gidx, weights=ys, minlength=n_q)
        finite = np.isfinite(np.sum(num)) and np.isfinite(np.sum(den))
    if not finite:  # labels near 1e308: sum rank x label is inf, inf / inf NaN, never printed
        from bench.errors import DataError

        raise DataError(f"ARP: the sums of rank x label overflow a float64 (largest label "
                        f"{float(np.max(np.abs(ys))):g}); ARP = sum rank x label / sum label "
                        "needs labels whose sums stay finite: rescale the labels")
    return cast(Array, num), cast(Array, den)


#: Up to this many distinct labels OPA counts by one pass per label value; above, by merging.
LEVEL_PASSES_MAX = 32


def opa_sums(gidx: NDArray[np.int64], ss: Array, ys: Array, offsets: NDArray[np.int64],
             rule: PairRule, merge: bool | None = None) -> tuple[Array, Array]:
    """Per query ``(pairs y_i > y_j ranked right, pairs y_i > y_j)``; a pair of equal scores
    counts as ``rule`` says. Rows in ranking order (equal scores adjacent). ``merge``: count by
    :func:`_merge_counts` (``None``: when there are more than :data:`LEVEL_PASSES_MAX` labels),
    else by :func:`_level_counts`; both give the same integers."""
    levels, rank = np.unique(ys, return_inverse=True)
    if merge is None:
        merge = levels.shape[0] > LEVEL_PASSES_MAX
    count = _merge_counts if merge else _level_counts
    right, lower = count(gidx, ss, ys, rank.astype(np.int64), levels, offsets, rule)
    n_q = offsets.shape[0] - 1
    return (cast(Array, np.bincount(gidx, weights=right, minlength=n_q)),
            cast(Array, np.bincount(gidx, weights=lower, minlength=n_q)))


def _level_counts(gidx: NDArray[np.int64], ss: Array, ys: Array, rank: NDArray[np.int64],
                  levels: Array, offsets: NDArray[np.int64], rule: PairRule
                  ) -> tuple[Array, Array]:
    """Per row: lower-labelled rows it is ranked right against (ties as ``rule``), and all
    lower-labelled rows of its query; one cumulative count per label value, ``O(N L)``."""
    n_rows = ys.shape[0]
    g_start, g_end = score_groups(gidx, ss, rule != "order")
    q_start = offsets[:-1][gidx]
    q_end = offsets[1:][gidx]
    tie_share = 0.5 if rule == "half" else 0.0
    right = np.zeros(n_rows, dtype=np.float64)
    lower = np.zeros(n_rows, dtype=np.float64)
    cum = np.zeros(n_rows + 1, dtype=np.float64)
    for r in range(1, levels.shape[0]):  # one pass per label value: rows below it
        np.cumsum(rank < r, out=cum[1:])
        at = rank == r
        after = cum[q_end] - cum[g_end]  # lower-labelled rows ranked after the row's group
        tied = cum[g_end] - cum[g_start]  # lower-labelled rows with the row's score
        right += np.where(at, after + tie_share * tied, 0.0)
        lower += np.where(at, cum[q_end] - cum[q_start], 0.0)
    return right, lower


def _merge_counts(gidx: NDArray[np.int64], ss: Array, ys: Array, rank: NDArray[np.int64],
                  levels: Array, offsets: NDArray[np.int64], rule: PairRule
                  ) -> tuple[Array, Array]:
    """:func:`_level_counts`' sums in ``O(N log N log n)`` (``n`` the longest query), carried
    per query on its first row: a bottom-up merge count of the later lower-labelled rows
    (:func:`_later_lower`), every query at once. Under ``"half"`` and ``"wrong"`` each tied
    group is first put in ascending label order, so that its own pairs count 0, and then
    ``tie_share`` times its pairs of different labels is added."""
    n_rows = ys.shape[0]
    n_levels = int(levels.shape[0])
    q_start = offsets[:-1][gidx]
    pos = np.arange(n_rows, dtype=np.int64) - q_start
    right = np.zeros(n_rows, dtype=np.float64)
    ranked = rank
    if rule != "order":
        g_start, _ = score_groups(gidx, ss, True)
        ranked = rank[np.lexsort((rank, g_start))]  # groups in place, each in ascending label
        if rule == "half":
            right += 0.5 * _different_pairs(g_start, rank, n_levels)
    right += _later_lower(q_start, pos, ranked, n_levels, int(np.max(pos, initial=0)) + 1)
    return right, _different_pairs(q_start, rank, n_levels)


def _different_pairs(seg: NDArray[np.int64], rank: NDArray[np.int64], n_levels: int) -> Array:
    """Per row: the pairs of different labels of the segment (a query, a tied group) that
    starts at that row (``seg``: each row's segment start), ``(size^2 - sum_l c_l^2) / 2``;
    0 on the other rows."""
    n_rows = rank.shape[0]
    keys, c = np.unique(seg * n_levels + rank, return_counts=True)
    sumsq = np.bincount(keys // n_levels, weights=(c * c).astype(np.float64), minlength=n_rows)
    size = np.bincount(seg, minlength=n_rows).astype(np.float64)
    out: Array = (size * size - sumsq) / 2.0
    return out


def _later_lower(seg: NDArray[np.int64], pos: NDArray[np.int64], rank: NDArray[np.int64],
                 n_levels: int, longest: int) -> Array:
    """Per row: the rows after it in its segment with a lower label rank. Blocks of 1, 2, 4,
    ... positions: at block size ``b`` each row of a left block counts the lower-labelled rows
    of the right block beside it (one sorted key array and two binary searches for every
    block pair at once); each pair of rows meets in exactly one block pair."""
    out = np.zeros(rank.shape[0], dtype=np.float64)
    b = 1
    while b < longest:
        pair = seg + (pos // (2 * b)) * (2 * b)  # a row id: unique per (segment, block pair)
        left = (pos // b) % 2 == 0
        keys = np.sort(pair[~left] * n_levels + rank[~left])
        base = pair[left] * n_levels
        out[left] += (np.searchsorted(keys, base + rank[left], "left")
                      - np.searchsorted(keys, base, "left"))
        b *= 2
    return out


def pair_values(names: Iterable[str], gidx: NDArray[np.int64], ss: Array, ys: Array,
                offsets: NDArray[np.int64], ties: str, pair_ties: str) -> dict[str, Array]:
    """The components of :data:`PAIR_COMPONENTS` among ``names``, each sum computed once;
    ``ties`` the profile's tie rule, ``pair_ties`` its OPA rule (``"rank"``: as the tie rule
    orders, ``"wrong"``: a tied pair is wrong)."""
    wanted = set(names) & set(PAIR_COMPONENTS)
    out: dict[str, Array] = {}
    if wanted & {"arp", "arp_labels"}:
        out["arp"], out["arp_labels"] = arp_sums(gidx, ss, ys, offsets, ties == "average")
    if wanted & {"opa", "opa_pairs"}:
        rule: PairRule = "wrong" if pair_ties == "wrong" else (
            "half" if ties == "average" else "order")
        out["opa"], out["opa_pairs"] = opa_sums(gidx, ss, ys, offsets, rule)
    return out
