"""Diversity metrics from per-document subtopic labels: ``evaluate(..., subtopics=...)``.

**Input.** TF-Ranking's diversity metrics take, per list, a ``[list_size, subtopic_size]`` array
of subtopic relevances (``tensorflow_ranking/python/metrics_impl.py`` ``_DivRankingMetric``
``:313-426``: labels of rank 3, ``[batch, list, subtopic]``). Here the same as a 2-D array
``subtopics`` of shape ``(rows, subtopics)`` aligned with ``labels``/``scores`` (row ``i`` is the
document of row ``i``; the same width for every row: a query with fewer subtopics leaves the
others 0), or, with a DataFrame, the names of its subtopic columns (or a 2-D array aligned with
its rows). Values are finite and ``>= 0``; a padding row (``Profile.padding``: its ``labels``
entry) is dropped with its subtopic row, which is not read (TF-Ranking pads those with -1).
Refused: another shape, ragged rows, text, booleans, NaN, infinity, a negative label (the
row, 1-based, and the column named), ``subtopics`` beside no metric that reads them, and a
diversity metric without them.

**Per query** (the list's rows; ``l_dj`` the label of document ``d`` for subtopic ``j``;
:mod:`bench.metrics.kernels.diversity`)::

    alpha_dcg(a)@k  = sum_{i < k} sum_j g_dj (1 - a)^{C_j(i)} / log2(i + 2)
    precision_ia@k  = sum_{i < k} |{j: d_i relevant to j}| / (D S)

with, under ``Profile.subtopic_gain="label"`` (``tf-ranking``), ``g_dj = l_dj`` and ``C_j(i)``
the sum of the labels above rank ``i`` for ``j`` (TF-Ranking ``_alpha_dcg_gain_fn`` ``:36-60``
over ``_discounted_cumulative_gain`` ``:122-151`` with ``_DEFAULT_RANK_DISCOUNT_FN``
``log(2)/log1p(rank)``; ``AlphaDCGMetric`` ``:785-822``, ``alpha`` 0.5, not normalised), and
under ``"binary"`` (ndeval, pyndeval) ``g_dj = 1`` when ``d`` is relevant to ``j`` and ``C_j(i)``
the count of those above. Relevant: ``label >= relevance_threshold`` (TF-Ranking
``PrecisionIAMetric`` ``:746-782``: ``labels >= 1.0``). ``S``: the subtopics with a relevant
document in the list (TF-Ranking ``num_subtopics``: ``reduce_any(labels >= 1, axis=1)``; ndeval
``actualSubtopics``); ``D``: ``k`` (``precision_denominator="k"``: ndeval ``computePrecision``)
or ``min(k, n)`` (``"min_k_n"``: TF-Ranking's ``valid_topn``). A list without a relevant
subtopic is blank (TF-Ranking ``divide_no_nan``: 0, counted under ``tf-ranking``'s ``empty=0``).
alpha-nDCG and nERR-IA divide by ndeval's greedy ideal over the list's documents (ties to the
largest document id, else the last row).

**Weights.** One weight per query is the query's weight in the mean: TF-Ranking's per-list
weight (``_DivRankingMetric._compute_per_list_weights`` ``:387-404``); per-example weights,
which TF-Ranking folds into the per-list value as well (``alpha_dcg / per_list_weights``), are
not modelled: give one weight per query.

**Ties.** The rows are ranked by score (float32 first under ``score_dtype``), tied scores by the
profile's ``ties`` (``stable``, ``row_desc``, ``docno_*``, ``random``). Under ``average``
(TF-Ranking shuffles ties: ``utils.sort_by_scores``) Precision-IA takes the expectation over the
tied orders (a tied group straddling ``k`` counts each member with the share of its places in
the top ``k``); alpha-DCG has no such closed form, and a tied group within the cutoff whose
documents' subtopic labels differ is refused, naming the query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.python_args import refuse_non_arrays
from bench.errors import ConfigError, DataError
from bench.metrics.diagnostics import stand_in_ties
from bench.metrics.diversity import Ranked, cutoffs, is_diversity, ranked_parts
from bench.metrics.names import MetricSpec
from bench.metrics.profile import Profile
from bench.metrics.qualified import groups
from bench.metrics.query_parts import summarise
from bench.metrics.result import EvaluationResult
from bench.metrics.tables import relevant_rows
from bench.metrics.tie_keys import random_tie_key
from bench.metrics.validate import Prepared

_FAMILIES = "alpha_dcg, alpha_ndcg, nerr_ia, precision_ia"
_TIES = ("stable", "row_desc", "docno_desc", "docno_asc", "random", "average")


@dataclass(frozen=True)
class SubtopicRows:
    """The subtopic labels as given: ``values`` (input rows x subtopics, float64, not yet
    checked for sign and finiteness), the columns' names for messages, and the frame's index
    (``None`` for arrays), whose labels name a frame's rows."""

    values: NDArray[np.float64]
    columns: tuple[str, ...]
    frame_index: Any = None

    def where(self, row: int, col: int) -> dict[str, Any]:
        """:class:`DataError` keywords for input row ``row`` (0-based) and column ``col``."""
        if self.frame_index is None:
            return {"row": row + 1, "column": self.columns[col]}
        return {"path": "DataFrame", "row": row + 1, "column": self.columns[col]}

    def label(self, row: int) -> str:
        """`` (index X)`` for a frame whose index label of ``row`` is not its position."""
        if self.frame_index is None:
            return ""
        got = self.frame_index[row]
        got = got.item() if isinstance(got, np.generic) else got
        return "" if got == row else f" (index {got!r})"


def subtopic_rows(subtopics: Any, frame: Any, n_rows: int) -> SubtopicRows:
    """``subtopics`` as a 2-D float array of ``n_rows`` rows (see the module docstring); a
    frame's column names are looked up in ``frame``."""
    names: tuple[str, ...] | None = None
    index = None if frame is None else frame.index
    refuse_non_arrays(subtopics=subtopics)  # a SciPy sparse matrix was read as shape ()
    if frame is not None and (isinstance(subtopics, str) or (
            isinstance(subtopics, Sequence) and subtopics and
            all(isinstance(c, str) for c in subtopics))):
        wanted = [subtopics] if isinstance(subtopics, str) else list(subtopics)
        lacking = [c for c in wanted if c not in frame.columns]
        if lacking:
            raise ConfigError(f"subtopics: no column {', '.join(map(repr, lacking))} in the "
                              f"DataFrame (columns: {', '.join(map(str, frame.columns))})")
        names, subtopics = tuple(wanted), frame[wanted]
    elif frame is not None and hasattr(subtopics, "index") and hasattr(subtopics, "columns") \
            and not subtopics.index.equals(frame.index):
        raise ConfigError("subtopics: a DataFrame whose index is not the evaluated frame's "
                              "(rows are paired by position; reindex it first)")
    if hasattr(subtopics, "columns"):
        names = names or tuple(str(c) for c in subtopics.columns)
        subtopics = subtopics.to_numpy()
    nested = isinstance(subtopics, list | tuple)
    if nested:
        _same_width(subtopics)
    arr = np.asarray(subtopics)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iufOUS":
        raise DataError(f"subtopics: numbers expected (a label per row and subtopic), got "
                        f"{'booleans' if arr.dtype.kind == 'b' else arr.dtype}",
                        column="subtopics")
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ConfigError(f"subtopics must be 2-D, rows x subtopics (TF-Ranking's [list, "
                          f"subtopic] labels per document, rows aligned with labels), got shape "
                          f"{arr.shape}; one subtopic: reshape(-1, 1)")
    if arr.shape[0] != n_rows:
        raise DataError(f"subtopics has {arr.shape[0]} rows but labels has {n_rows}: give one "
                        "row of subtopic labels per document", column="subtopics")
    cols = names or tuple(f"subtopics[:, {j}]" for j in range(arr.shape[1]))
    sub = SubtopicRows(np.zeros(arr.shape), cols, index)
    text = arr.dtype.kind in "US"
    cells = subtopics if nested else arr  # a list's own cells: [True, 1] is no number row
    bad = [(i, j, v) for i, row in enumerate(cells) for j, v in enumerate(row)
           if not _number(v, text and not nested)] if nested or text or arr.dtype.kind == "O" \
        else []
    if bad:
        i, j, v = bad[0]
        shown = v.item() if isinstance(v, np.generic) else v
        raise DataError(f"subtopic label {shown!r} is not a number{sub.label(i)}",
                        **sub.where(i, j))
    return SubtopicRows(arr.astype(np.float64), cols, index)


def _same_width(rows: Sequence[Any]) -> None:
    """Nested lists: every row a sequence of the first row's width (a ragged row named)."""
    if rows and not isinstance(rows[0], str) and not hasattr(rows[0], "__len__"):
        return  # a flat list: the shape check names it
    width: int | None = None
    for i, row in enumerate(rows):
        if isinstance(row, str) or not hasattr(row, "__len__"):
            raise ConfigError(f"subtopics row {i + 1} is {row!r}, not a row of subtopic labels: "
                              "give rows x subtopics")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise DataError(f"subtopics row {i + 1} has {len(row)} labels but row 1 has "
                            f"{width}: every row needs one label per subtopic (0 where the "
                            "document does not cover it)", row=i + 1, column="subtopics")


def _number(value: Any, text: bool) -> bool:
    """A cell that is a number (text never is: ``"1"`` is refused as a label, not parsed);
    ``None`` is (NaN, refused later as not finite)."""
    if text or isinstance(value, str | bytes | bool | np.bool_):
        return False
    try:
        float(value if value is not None else np.nan)
    except (TypeError, ValueError):
        return False
    return True


def checked_values(sub: SubtopicRows, order: NDArray[np.int64]) -> NDArray[np.float64]:
    """The rows ``order`` (input rows, in the prepared order) of ``sub``, refused where a value
    is not finite or is negative (the first such input row named)."""
    vals = sub.values[order]
    bad = ~np.isfinite(vals) | (vals < 0)
    if bad.any():
        rows, cols = np.nonzero(bad)
        first = int(np.argmin(order[rows] * vals.shape[1] + cols))
        row, col = int(order[rows[first]]), int(cols[first])
        v = float(sub.values[row, col])
        what = "not finite" if not np.isfinite(v) else "negative"
        raise DataError(f"subtopic label {v!r} is {what}{sub.label(row)}: labels are finite and "
                        ">= 0 (0: the document does not cover the subtopic; padding documents "
                        "are marked by their labels entry, under a profile with padding)",
                        **sub.where(row, col))
    return vals


def subtopic_results(prep: Prepared, subtopics: Any, frame: Any, n_rows: int,
                     specs: list[MetricSpec], prof: Profile, *, per_query: bool
                     ) -> list[EvaluationResult]:
    """The diversity metrics ``specs`` from per-row subtopic labels (the module docstring),
    one result per profile (:func:`bench.metrics.qualified.groups`), for
    :func:`bench.metrics.qualified.merge`."""
    if subtopics is None:
        raise ConfigError(f"{', '.join(s.key for s in specs)} need(s) subtopic labels: "
                          "evaluate(..., subtopics=<rows x subtopics array>) (TF-Ranking's "
                          "[list, subtopic] labels), or subtopic qrels ('topic subtopic docno "
                          "judgment') with evaluate_trec")
    if not specs:
        raise ConfigError("subtopics= given, but none of the metrics reads subtopic labels "
                          f"({_FAMILIES}); leave it out, or ask for one of those")
    _one_weight_per_query(prep, specs)
    sub = subtopic_rows(subtopics, frame, n_rows)
    order = np.arange(n_rows, dtype=np.int64) if prep.order is None else prep.order
    values = checked_values(sub, order)
    results = []
    for g_prof, g_specs in groups(specs, prof):
        ties_k = cutoffs(g_specs, g_prof)
        ranked = rank_labels(prep, values, g_prof, ties_k, g_specs)
        parts = ranked_parts(ranked, g_specs, g_prof, ties_k)
        stand_in_ties(parts.query_ids, parts.ties, ties_k, g_prof, prep.docno is not None)
        results.append(summarise(parts, g_specs, g_prof, per_query=per_query))
    return results


def _one_weight_per_query(prep: Prepared, specs: list[MetricSpec]) -> None:
    """Per-row weights that differ within a query are refused: ndeval has no weights, and
    TF-Ranking's per-example weights scale each document's gain and make the list weight the
    mean over the relevant documents only (``_per_example_weights_to_per_list_weights``
    ``metrics_impl.py:63-119``), neither of which ltrbench's mean of the rows is."""
    w, wq = prep.row_weights, prep.query_weights
    if w is None or wq is None:
        return
    differ = w != np.repeat(wq, np.diff(prep.offsets))
    if differ.any():
        q = prep.query_ids[np.searchsorted(prep.offsets, int(np.argmax(differ)), "right") - 1]
        raise ConfigError(f"{', '.join(s.key for s in specs)}: per-row weights differ within "
                          f"query {q.item() if isinstance(q, np.generic) else q!r}; give one "
                          "weight per query (TF-Ranking's per-list weight): per-example weights "
                          "of diversity metrics (TF-Ranking scales each document's gain) are "
                          "not modelled")


def _positions(prep: Prepared, prof: Profile, specs: list[MetricSpec]
               ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Per row its query, and in ranked order the rows and their (rounded) scores."""
    if prof.ties not in _TIES or prof.nonpositive_scores != "rank":
        raise ConfigError(f"{', '.join(s.key for s in specs)}: profile {prof.name!r} orders "
                          f"tied scores by {prof.ties!r} or hides non-positive scores; subtopic "
                          f"labels are ranked under ties {', '.join(_TIES)} only")
    n = prep.labels.shape[0]
    sizes = np.diff(prep.offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes).astype(np.int64)
    scores = prep.scores
    if prof.score_dtype == "float32":
        scores = scores.astype(np.float32).astype(np.float64)
    rows = np.arange(n, dtype=np.int64)
    key = rows
    if prof.ties == "row_desc":
        key = -rows
    elif prof.ties == "random":
        key = random_tie_key(prep.offsets, prof.tie_seed)  # the query's own rows and the seed
    elif prof.ties in ("docno_desc", "docno_asc") and prep.docno is not None:
        _, inv = np.unique(prep.docno.astype(str), return_inverse=True)
        key = inv.ravel().astype(np.int64) * (-1 if prof.ties == "docno_desc" else 1)
    elif prof.ties == "docno_desc":
        key = -rows
    ranked = np.lexsort((key, -scores, query))
    return query, ranked.astype(np.int64), scores


def rank_labels(prep: Prepared, values: NDArray[np.float64], prof: Profile,
                ties_k: int | None, specs: list[MetricSpec]) -> Ranked:
    """The prepared rows ranked under ``prof`` and their subtopic labels ``values`` (prepared
    order) as the kernel's triples (:class:`bench.metrics.diversity.Ranked`)."""
    query, ranked, scores = _positions(prep, prof, specs)
    n_q, m = prep.n_queries, values.shape[1]
    sizes = np.diff(prep.offsets)
    pos = np.empty(ranked.shape[0], dtype=np.int64)
    pos[ranked] = np.arange(ranked.shape[0]) - np.repeat(prep.offsets[:-1], sizes)
    rq, rs = query[ranked], scores[ranked]
    same = np.r_[False, (rq[1:] == rq[:-1]) & (rs[1:] == rs[:-1])]
    inside = pos[ranked] < ties_k if ties_k is not None else np.ones(ranked.shape[0], bool)
    ties = np.bincount(rq[same & inside], minlength=n_q) > 0
    group = None
    if prof.ties == "average":
        group = _tie_groups(ranked, same, pos, values, specs, prep, ties_k)
    rel = relevant_rows(prof, values.ravel()).reshape(values.shape) & (values > 0)
    graded = prof.subtopic_gain == "label"
    entry = (values > 0) if graded else rel
    e_row, e_sub = np.nonzero(entry)
    e_q = query[e_row]
    slots, e_slot = np.unique(e_q * m + e_sub, return_inverse=True)
    e_slot = e_slot.ravel().astype(np.int64)
    relevant_slot = np.zeros(slots.shape[0], dtype=bool)
    relevant_slot[e_slot[rel[e_row, e_sub]]] = True
    n_sub = np.bincount(slots[relevant_slot] // m, minlength=n_q).astype(np.float64)
    cands, e_cand = np.unique(e_row, return_inverse=True)
    e_cand = e_cand.ravel().astype(np.int64)
    by = np.lexsort((e_slot, e_cand))
    key = cands - prep.offsets[query[cands]]  # the ideal's tie: the last row (largest id)
    if prep.docno is not None:
        key = np.unique(prep.docno.astype(str), return_inverse=True)[1].ravel()[cands]
    value = values[e_row, e_sub] if graded else None
    return Ranked(query_ids=prep.query_ids, n=sizes.astype(np.int64), ties=ties, n_sub=n_sub,
                  run_q=e_q, run_pos=pos[e_row], run_slot=e_slot, cand_q=query[cands],
                  cand_key=key.astype(np.int64), tri_cand=e_cand[by], tri_slot=e_slot[by],
                  n_slots=int(slots.shape[0]), n_documents=int(prep.labels.shape[0]),
                  run_value=value, tri_value=None if value is None else value[by],
                  run_rel=rel[e_row, e_sub] if graded else None,
                  tie_group=None if group is None else (group[0][e_row], group[1][e_row]),
                  query_weights=None if prof.query_weights == "ignore" else prep.query_weights)


def _tie_groups(ranked: NDArray[np.int64], same: NDArray[np.bool_], pos: NDArray[np.int64],
                values: NDArray[np.float64], specs: list[MetricSpec], prep: Prepared,
                ties_k: int | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per row its tied group's first position and size (``ties="average"``); refused for the
    alpha families where a group within the cutoff holds different subtopic labels."""
    start = np.flatnonzero(~same)
    size = np.diff(np.r_[start, ranked.shape[0]])
    gid = np.cumsum(~same) - 1
    first = np.empty(ranked.shape[0], dtype=np.int64)
    count = np.empty(ranked.shape[0], dtype=np.int64)
    first[ranked] = pos[ranked[start]][gid]
    count[ranked] = size[gid]
    if any(s.family != "precision_ia" for s in specs):
        lead = ranked[start][gid]  # each row's group's first row
        differs = (values[ranked] != values[lead]).any(axis=1)
        within = pos[ranked[start]][gid] < ties_k if ties_k is not None else True
        bad = np.flatnonzero(differs & within)
        if bad.shape[0]:
            q = prep.query_ids[np.searchsorted(prep.offsets, ranked[bad[0]], side="right") - 1]
            q = q.item() if isinstance(q, np.generic) else q
            raise ConfigError(
                f"{', '.join(s.key for s in specs if s.family != 'precision_ia')}: query {q!r} "
                "has tied scores on documents with different subtopic labels, and ties='average'"
                " has no exact expectation for alpha-DCG (the gain of a document depends on "
                "those above it); use a profile with one order (dataclasses.replace(get_profile("
                "'tf-ranking'), ties='stable')) or break the ties")
    return first, count


def split_diversity(specs: list[MetricSpec]) -> tuple[list[MetricSpec], list[MetricSpec]]:
    """``(diversity specs, the others)``, each in the given order."""
    return [s for s in specs if is_diversity(s)], [s for s in specs if not is_diversity(s)]
