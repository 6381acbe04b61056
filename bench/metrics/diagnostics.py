"""Diagnostics returned with every evaluation: what in the data can move the numbers."""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from types import FrameType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.errors import DataError


@dataclass(frozen=True)
class Diagnostics:
    """Counts that explain differences between tools, and the mean under each empty-query policy.

    Attributes:
        n_queries: queries evaluated.
        n_documents: scored documents.
        n_blank: queries whose ideal DCG is 0 (no document with a positive gain); NDCG, AP and
            recall are 0/0 there, and the profile's ``empty`` decides them.
        n_single_document: queries with one scored document.
        n_queries_with_ties_in_topk: queries where a document in the top ``ties_k`` has the same
            score (after the profile's score precision) as another document of the query.
        ties_k: the cutoff of that count (largest cutoff asked; ``None`` = whole list).
        blank_policy: ``"excluded"``, ``"scored 0"`` or ``"scored 1"`` (the profile's).
        mean_blank_excluded / mean_blank_as_0 / mean_blank_as_1: when there are blank queries,
            the mean of each ranking metric with them left out, scored 0, and scored 1 (the last
            only for ndcg, map, recall, mrr and hits, whose best value is 1), with the profile's
            query weights (but neither LightGBM's unweighted 1 nor XGBoost's clamping).
        blank_by_metric: each ranking metric's blank queries (its 0/0 queries: for ndcg no
            positive gain, for map, P, recall, mrr... no document at or above the profile's
            relevance level, trec_eval's ``num_rel`` = 0 under ``-l``), keyed as ``metrics``.
            ``n_blank`` counts ndcg's; under ``--relevance-level 3`` map's can be more
            (:meth:`as_dict` includes it only then).
        backend: ``"numba"`` (compiled kernel), ``"python"`` (its arithmetic interpreted, small
            inputs: :mod:`bench.metrics.kernels.small`) or ``"numpy"``; ``"a+b"`` when parts
            of one evaluation took different ones.
    """

    n_queries: int
    n_documents: int
    n_blank: int
    n_single_document: int
    n_queries_with_ties_in_topk: int
    ties_k: int | None
    blank_policy: str
    backend: str
    mean_blank_excluded: dict[str, float] = field(default_factory=dict)
    mean_blank_as_0: dict[str, float] = field(default_factory=dict)
    mean_blank_as_1: dict[str, float] = field(default_factory=dict)
    blank_by_metric: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """Plain dict (NaN becomes ``None`` so that the result is valid JSON)."""
        out = asdict(self)
        for key in ("mean_blank_excluded", "mean_blank_as_0", "mean_blank_as_1"):
            out[key] = {k: (None if math.isnan(v) else v) for k, v in out[key].items()}
        if all(n == self.n_blank for n in self.blank_by_metric.values()):
            del out["blank_by_metric"]  # said by n_blank; shown when a metric's count differs
        return out


def blank_counts(d: Diagnostics, relevance_threshold: float) -> str:
    """The footer's count of blank queries, true per metric: ``"0 (scored 0)"`` when every
    metric has ``d.n_blank`` of them, else each count with its metrics, e.g. ``"8 for map, P_5;
    0 for ndcg_cut_10 (relevant: label >= 3; scored 0)"``: under a relevance level above 1
    (trec_eval ``-l 3``, whose ``num_rel`` counts labels >= 3) map and P have 0/0 queries that
    ndcg, graded by every positive label, does not."""
    counts = d.blank_by_metric
    if all(n == d.n_blank for n in counts.values()):
        return f"{d.n_blank} ({d.blank_policy})"
    by_count: dict[int, list[str]] = {}
    for key, n in counts.items():
        by_count.setdefault(n, []).append(key)
    parts = "; ".join(f"{n} for {', '.join(keys)}"
                      for n, keys in sorted(by_count.items(), reverse=True))
    return f"{parts} (relevant: label >= {relevance_threshold:g}; {d.blank_policy})"


class ToolWeightsWarning(UserWarning):
    """Query weights given under a profile whose tool takes none (``Profile.query_weights =
    "not_in_tool"``): the mean printed is the weighted mean of the tool's per-query values,
    a number the tool itself cannot print."""


def warn_tool_weights(profile_name: str, weights: NDArray[Any] | None) -> None:
    """Say, when ``weights`` were given, that they are applied although ``profile_name``'s tool
    takes no weights at all (trec_eval, ranx, RecBole ...)."""
    if weights is not None:
        warnings.warn(ToolWeightsWarning(
            f"profile {profile_name!r}: its tool takes no query weights; the mean printed weighs "
            "each query by the weights given (the tool's per-query values in ltrbench's "
            "weighted mean: a number the tool cannot print); leave the weights out to compare "
            "with the tool"), stacklevel=_callers_level())


class SingleDocumentWarning(UserWarning):
    """Queries of one scored document evaluated in a family whose tool does not evaluate such a
    query on its own (``Profile.single_document_by_family``): how many, the first ids, what
    they scored."""


def single_document_rule(query_ids: NDArray[Any], n: NDArray[Any],
                         metrics: Sequence[tuple[str, str]], profile: Any) -> None:
    """Warn (or refuse, as the profile's ``single_document_by_family`` says) when a query has
    one scored document and a metric of ``metrics`` (``(name, family)`` pairs) is in a family
    its tool does not evaluate on such a query alone. Nothing otherwise."""
    rules = dict(profile.single_document_by_family)
    named = [(name, rules[fam]) for name, fam in metrics if fam in rules]
    single = np.asarray(n) == 1
    if not named or not single.any():
        return
    ids = [str(q) for q in np.asarray(query_ids)[single].tolist()]
    shown = _first_ids(ids)
    count = f"{len(ids)} {'query has' if len(ids) == 1 else 'queries have'}"
    refused = [name for name, how in named if how == "refuse"]
    if refused:
        raise DataError(
            f"{count} one scored document ({shown}): profile {profile.name!r} does not evaluate "
            f"{', '.join(refused)} on a query of one document, as its tool refuses one (see the "
            "profile's description); give such queries two or more documents, leave them out, "
            "or choose a profile that scores them")
    names = ", ".join(name for name, _ in named)
    warnings.warn(
        f"{count} one scored document ({shown}): the tool of profile {profile.name!r} refuses "
        f"{names} on a query of one document alone (the profile's description says where); "
        "they are scored here as "
        "the tool scores them in a batch of queries padded to one width (the document's gain; "
        "NDCG 1 with a relevant document, 0 without) and counted in the mean: leave them out to "
        "match calls of the tool on one query at a time",
        SingleDocumentWarning, stacklevel=_callers_level())


class AucLabelsWarning(UserWarning):
    """Queries whose labels the profile's tool reads as other classes than ``label >=
    relevance_threshold`` in ``auc`` (``Profile.auc_labels = "two_classes"``: scikit-learn)."""


def auc_label_rule(labels: NDArray[np.float64], offsets: NDArray[np.int64],
                   query_ids: NDArray[Any], profile: Any) -> None:
    """Warn when ``profile`` reads ``auc`` labels as two classes, the larger positive
    (``roc_auc_score``), and a query's labels are three or more values (the tool refuses them)
    or two values the threshold does not split (``1, 2``: the tool's 2 is the positive class,
    the threshold's both are relevant). Nothing otherwise, or under ``"threshold"``."""
    off = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(off)
    if profile.auc_labels != "two_classes" or not (sizes > 0).any():
        return
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = np.asarray(labels, dtype=np.float64)[np.lexsort((labels, query))]
    new = np.ones(y.shape[0], dtype=np.int64)
    new[1:] = (y[1:] != y[:-1]) | (query[1:] != query[:-1])
    filled = sizes > 0
    starts = off[:-1][filled]
    distinct = np.add.reduceat(new, starts)
    low, high = y[starts], y[off[1:][filled] - 1]
    thr = profile.relevance_threshold
    odd = (distinct > 2) | ((distinct == 2) & ~((low < thr) & (high >= thr)))
    if not odd.any():
        return
    ids = [str(q) for q in np.asarray(query_ids)[filled][odd].tolist()]
    warnings.warn(AucLabelsWarning(
        f"{len(ids)} {'query has' if len(ids) == 1 else 'queries have'} graded labels in auc "
        f"({_first_ids(ids)}): profile {profile.name!r} reads relevant as label >= {thr:g}, "
        "but its tool, scikit-learn's roc_auc_score, refuses three or more label values in "
        "y_true (ValueError: multi_class must be in ('ovo', 'ovr')) and reads two values as "
        "two classes, the larger positive (labels 1, 2: 2 relevant, 1 not); binarise them "
        f"(label >= {thr:g}) before calling the tool to compare"), stacklevel=_callers_level())


class TiedScoresWarning(UserWarning):
    """Queries with tied scores in the top k under a profile whose tool orders ties by a sort
    the profile does not reproduce (``Profile.tool_tie_order``)."""


def tie_rule(query_ids: NDArray[Any], ties: NDArray[Any], ties_k: int | None,
             profile: Any) -> None:
    """Warn when a query has tied scores in its top ``ties_k`` and the profile's tool orders
    ties by a sort the profile does not reproduce; nothing otherwise."""
    tied = np.asarray(ties, dtype=bool)
    if profile.tool_tie_order == "reproduced" or not tied.any():
        return
    ids = [str(q) for q in np.asarray(query_ids)[tied].tolist()]
    shown = _first_ids(ids)
    top = "whole list" if ties_k is None else f"top {ties_k}"
    warnings.warn(
        f"{len(ids)} of {tied.shape[0]} queries have tied scores in the {top} ({shown}): "
        f"profile {profile.name!r} orders them by its rule (ties={profile.ties!r}), but its "
        "tool orders equal scores by a sort it does not define (the profile's description "
        "says which), so the tool may print another number for these queries; break the ties "
        "to compare", TiedScoresWarning, stacklevel=_callers_level())


def stand_in_ties(query_ids: NDArray[Any], ties: NDArray[Any], ties_k: int | None,
                  profile: Any, has_docno: bool) -> None:
    """Warn once when the profile breaks ties by document id (``docno_desc``: trec_eval, gdeval;
    ``docno_asc``: msmarco) but the rows carry none (arrays, SVMlight): the row index stands in
    for the id, a rule of ltrbench's, not the tool's; nothing when no query has tied scores."""
    tied = np.asarray(ties, dtype=bool)
    if has_docno or profile.ties not in ("docno_desc", "docno_asc") or not tied.any():
        return
    n_tied = int(tied.sum())  # the first six named (five, then "..."): not a list of all
    ids = [str(q) for q in np.asarray(query_ids)[tied][:6].tolist()]
    top = "whole list" if ties_k is None else f"top {ties_k}"
    way = ("descending", "later row first") if profile.ties == "docno_desc" else (
        "ascending", "earlier row first")
    warnings.warn(
        f"{n_tied} of {tied.shape[0]} queries have tied scores in the {top} ({_first_ids(ids)})"
        f": profile {profile.name!r} orders ties by document id {way[0]} "
        f"(ties={profile.ties!r}), but these rows carry no document id, so the row index stands "
        f"in for it ({way[1]}); pass docno= (a TREC run, --qrels/--run) for the tool's order, or "
        "break the ties", TiedScoresWarning, stacklevel=_callers_level())


def _first_ids(ids: list[str]) -> str:
    """The first five ids, quoted, and ``...`` when there are more."""
    return ", ".join(repr(q) for q in ids[:5]) + (", ..." if len(ids) > 5 else "")


def _callers_level() -> int:
    """The ``stacklevel`` that points a warning issued by this module's caller at the first frame
    outside the ``bench`` package (the user's line, whichever entry point they called)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame: FrameType | None = sys._getframe(2)  # 1: the function that warns; 2: its caller
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level
