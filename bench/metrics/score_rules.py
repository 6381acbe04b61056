"""``Profile.nonpositive_scores``: a document scored <= 0 is no hit (torchmetrics >= 1.7.4).

torchmetrics' retrieval precision, reciprocal rank, average precision and recall compute
``target = torch.where(preds > 0, target, 0)`` before looking at the top k
(``src/torchmetrics/functional/retrieval/precision.py``, ``reciprocal_rank.py``,
``average_precision.py``, ``recall.py``; PR #3160), while the blank-query test
(``if not target.sum()``) and recall's denominator keep every relevant target, and NDCG keeps
every gain. Under ``nonpositive_scores="not_relevant"`` a relevant row scored <= 0 (after the
profile's ``score_dtype``) keeps its place and its gain but is not relevant; it still counts in
``R`` (as a judged document that is not in the list, with gain 0: the ideal DCG is unchanged).

In the label-table kernels such a row takes a stand-in label (same gain, not relevant) and a
per-query count at one more stand-in label (gain 0, relevant) restores ``R``; in the NumPy
oracle the row's relevance is cleared and the same count enters as an extra document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError
from bench.metrics.profiles import Profile
from bench.metrics.tables import LabelTables


def hidden_rows(prof: Profile, scores: Callable[[], NDArray[np.float64]],
                relevant: Callable[[], NDArray[np.bool_]]) -> NDArray[np.bool_] | None:
    """Relevant rows that the profile does not count as hits (scored <= 0), or ``None``.
    ``scores`` and ``relevant`` are called only under that rule: a profile without it pays
    no per-row array (they cost 17 bytes per document on the default path when eager)."""
    if prof.nonpositive_scores != "not_relevant":
        return None
    hide = relevant() & (scores() <= 0)
    return hide if hide.any() else None


def hide_labels(labels: NDArray[np.float64], tables: LabelTables, hide: NDArray[np.bool_]
                ) -> tuple[NDArray[np.float64], LabelTables]:
    """The label-table form: label ``l`` of a hidden row becomes ``size + l`` (gain and ERR
    probability of ``l``, not relevant); label ``2 * size`` (gain 0, relevant) is the stand-in
    that :func:`hidden_counts` fills to keep ``R``."""
    size = tables.size
    gain = np.concatenate([tables.gain, tables.gain, [0.0]])
    rel = np.concatenate([tables.rel, np.zeros(size), [1.0]])
    err = np.concatenate([tables.err, tables.err, [0.0]])
    order = np.lexsort((-np.arange(gain.shape[0]), -gain)).astype(np.int64)
    return np.where(hide, labels + size, labels), LabelTables(gain=gain, rel=rel, err=err,
                                                              order=order)


def hidden_counts(extra_hist: NDArray[np.int64] | None, hide: NDArray[np.bool_],
                  offsets: NDArray[np.int64], size: int) -> NDArray[np.int64]:
    """``extra_hist`` (queries x labels, or a new one) with each query's hidden rows counted at
    the last stand-in label (``size - 1`` of the extended tables)."""
    n_q = offsets.shape[0] - 1
    out = np.zeros((n_q, size), dtype=np.int64) if extra_hist is None else extra_hist
    out[:, size - 1] += np.add.reduceat(hide.astype(np.int64), offsets[:-1]) * (
        np.diff(offsets) > 0)
    return out


def hidden_extras(extra: dict[str, Any], hide: NDArray[np.bool_],
                  offsets: NDArray[np.int64]) -> dict[str, Any]:
    """The NumPy oracle's extra documents plus one (gain 0, relevant) per hidden row."""
    sizes = np.diff(offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)[hide].astype(np.int64)
    gain = np.zeros(query.shape[0])
    rel = np.ones(query.shape[0])
    if extra:
        return {"extra_gain": np.concatenate([extra["extra_gain"], gain]),
                "extra_rel": np.concatenate([extra["extra_rel"], rel]),
                "extra_query": np.concatenate([extra["extra_query"], query])}
    return {"extra_gain": gain, "extra_rel": rel, "extra_query": query}


#: Families torchmetrics computes without the rule: ``retrieval_hit_rate`` counts the top k of
#: the unfiltered targets (``functional/retrieval/hit_rate.py``, read at dab0333). Under
#: ``nonpositive_scores="not_relevant"`` they are evaluated in a group of their own with
#: ``nonpositive_scores="rank"`` (:func:`bench.metrics.qualified.groups`).
UNFILTERED = ("hits",)


def refuse_unfiltered(families: set[str], prof: Profile) -> None:
    """torchmetrics' ``retrieval_hit_rate`` does not apply the rule (``hit_rate.py``: the top k
    of the unfiltered targets), while ltrbench's hits@k reads the same relevance as P@k: under
    ``nonpositive_scores="not_relevant"`` it would print a number torchmetrics does not, so it
    is refused where one pass must compute both (``evaluate`` and ``evaluate_trec`` put hits@k
    in a group of its own, :data:`UNFILTERED`)."""
    if prof.nonpositive_scores == "not_relevant" and families & set(UNFILTERED):
        raise ConfigError(
            f"hits@k under profile {prof.name!r}: its nonpositive_scores='not_relevant' rule "
            "(torchmetrics' precision, AP, RR, recall) is not applied by torchmetrics' "
            "retrieval_hit_rate; evaluate hits@k under a profile with nonpositive_scores='rank' "
            "(dataclasses.replace(profile, nonpositive_scores='rank'))")
