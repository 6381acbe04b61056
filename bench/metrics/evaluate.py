"""``evaluate``: ranking metrics of scored, query-grouped documents under a named convention."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

import bench.metrics.aggregate as aggregate
import bench.metrics.qualified as qualified
from bench.data.subnormal import refuse_flushed_scores
from bench.errors import ConfigError, DataError, choice_hint, spelled_choice
from bench.metrics.components import Components, Request, build_request
from bench.metrics.diagnostics import auc_label_rule, stand_in_ties, warn_tool_weights
from bench.metrics.diversity_labels import split_diversity, subtopic_results
from bench.metrics.dropped_rows import cut_run, padding_mask, unpad
from bench.metrics.kernels.components import ranked_request
from bench.metrics.kernels.judged import judged_components
from bench.metrics.kernels.numpy_kernel import numpy_components
from bench.metrics.kernels.python_kernel import python_components
from bench.metrics.kernels.small import use_small_path
from bench.metrics.missing import missing_parts
from bench.metrics.names import MetricSpec, parse_metrics
from bench.metrics.profiles import Profile, given_profile
from bench.metrics.query_parts import QueryParts, combine, summarise, take
from bench.metrics.result import EvaluationResult
from bench.metrics.row_inputs import check_rows, named_rows
from bench.metrics.score_rules import (
    hidden_counts,
    hidden_extras,
    hidden_rows,
    hide_labels,
    refuse_unfiltered,
)
from bench.metrics.tables import (
    discount_table,
    err_probability,
    gains,
    label_tables,
    relevant_rows,
    with_zero_label,
)
from bench.metrics.tie_keys import needs_numpy_kernel, tie_key
from bench.metrics.validate import Prepared, check_labels, float32_query_weights, prepare

if TYPE_CHECKING:
    import pandas as pd

#: Largest integer label for which the compiled kernel's per-query label counts are used.
_MAX_TABLE = 256
#: ``python``: the compiled kernel's arithmetic interpreted (:mod:`bench.metrics.kernels.python_kernel`).
BACKENDS = ("auto", "numba", "numpy", "python")


@dataclass(frozen=True)
class Judged:
    """What the qrels say beyond the scored rows' labels (TREC input).

    Attributes:
        labels, query: judged documents that were not scored (relevance >= 0) and their query
            number; empty unless the IDCG basis is ``qrels``.
        unjudged: per scored row, True when the document has no judgment or a negative one
            (its label is then 0); ``None`` = every row judged. Used by ``unjudged_gain`` and
            bpref (unjudged documents are skipped).
        pooled: per scored row, True when its judgment is negative (in the pool, unjudged:
            trec_eval's ``RELVALUE_UNJUDGED``, which infAP tells from a document without a
            judgment); ``None`` = none.
    """

    labels: NDArray[np.float64]
    query: NDArray[np.int64]
    unjudged: NDArray[np.bool_] | None = None
    pooled: NDArray[np.bool_] | None = None


def evaluate(
    labels: ArrayLike | pd.DataFrame,
    scores: ArrayLike | None = None,
    *,
    qid: ArrayLike | str | None = None,
    group: ArrayLike | None = None,
    metrics: str | Iterable[str] = ("ndcg@10",),
    profile: str | Profile | None = None,
    per_query: bool = False,
    weights: ArrayLike | str | None = None,
    docno: ArrayLike | str | None = None,
    sort_by_qid: bool = False,
    backend: str = "auto",
    threads: int | None = None,
    label: str | None = None,
    score: str | None = None,
    subtopics: Any = None,
) -> EvaluationResult:
    """Ranking metrics of ``scores`` against relevance ``labels``, one value per query and the mean.

    Args:
        labels: relevance label per document (row), ``>= 0``; or a pandas DataFrame with one
            row per document, in any row order (:mod:`bench.metrics.frames`: ``label=``,
            ``score=``, ``qid=``, ``docno=``, ``weights=`` name its columns, common names are
            found without them; rows are grouped by query keeping their order within a query).
        scores: model score per row (higher ranks first); finite. With a DataFrame: an array
            aligned with its rows, or left out to use its score column.
        qid: query id per row, rows of a query contiguous (or ``sort_by_qid=True``).
        group: alternatively, query sizes in row order (LightGBM's ``group``).
        metrics: names such as ``"ndcg@10"``, ``"map"``, ``"ndcg@1,3"`` (:mod:`bench.metrics.names`).
        profile: a name in :data:`PROFILES` or a :class:`Profile` (default ``"ltrbench"``:
            gain ``2^l - 1``, ``1/log2(rank + 1)``, ties averaged, blank queries excluded).
            Given explicitly, it applies to every name: a peer name of its tool family
            (``ndcg_cut_10`` under ``trec_eval-c``) takes it, one of another family is refused
            (:func:`bench.metrics.qualified.resolve`); left out, a peer name keeps its tool's
            profile and :attr:`EvaluationResult.metric_profiles` names each metric's.
        per_query: also return the per-query table.
        weights: one weight per query, or per row (a query's weight is then the mean of its rows'
            weights, as LightGBM's ``Metadata::CalculateQueryWeights``).
        docno: document ids, for the ``docno_desc`` tie rule (trec_eval).
        sort_by_qid: reorder rows so each query is contiguous (rows keep their order in a query).
        backend: ``"auto"`` (compiled kernel when labels are integers, else NumPy; on inputs
            of at most :data:`bench.metrics.kernels.small.SMALL_INPUT_ROWS` rows, while numba
            is not loaded, the same kernel interpreted, without importing numba), ``"numba"``,
            ``"python"`` (the compiled kernel's arithmetic in Python: the same numbers) or
            ``"numpy"`` (the vectorised reference).
        threads: threads of the compiled kernel on inputs of at least 2**20 rows (default: the
            CPUs this process may use); results do not depend on it.
        label, score: with a DataFrame, the names of its label and score columns.
        subtopics: per row its subtopic labels (:mod:`bench.metrics.diversity_labels`).

    Returns:
        :class:`EvaluationResult`.

    Raises:
        DataError: mismatched lengths, NaN/infinite scores, negative labels, labels the profile
            does not accept, non-contiguous qid, empty input (the message names the row).
        ConfigError: unknown metric, profile or backend (the message lists the valid ones).

    Example:
        >>> r = evaluate([2, 0, 1, 0], [0.9, 0.8, 0.1, 0.3], group=[2, 2], metrics="ndcg@2")
        >>> round(r.metrics["ndcg@2"], 6)
        0.815465
    """
    _check_options(per_query=per_query, sort_by_qid=sort_by_qid, threads=threads)
    frame = labels if _is_frame(labels := named_rows(labels)) else None  # a pyarrow Table too
    prof, specs, backend = _profile_and_specs(profile, metrics, backend)
    cols, (labels, scores, qid, docno, weights, sort_by_qid) = _input_arrays(
        labels, scores, qid=qid, group=group, weights=weights, docno=docno,
        sort_by_qid=sort_by_qid, label=label, score=score, padding=prof.padding)
    labels, scores, padding = padding_mask(labels, scores, prof)  # Profile.padding: the call's
    try:
        prep = unpad(prepare(labels, scores, qid=qid, group=group, weights=weights, docno=docno,
                             sort_by_qid=sort_by_qid, threads=threads), padding, weights)
        sub = (subtopics, frame, len(np.asarray(labels)))
        return _with_subtopics(prep, sub, specs, prof, per_query, backend, threads)
    except DataError as exc:  # a frame's rows: name the frame's column (bench.data.inputs)
        if cols is None:
            raise
        raise cols.locate(exc) from None


def _with_subtopics(prep: Prepared, sub: tuple[Any, Any, int], specs: list[MetricSpec],
                    prof: Profile, per_query: bool, backend: str, threads: int | None
                    ) -> EvaluationResult:
    """:func:`evaluate_prepared`, and where ``specs`` or ``sub`` (subtopics, the frame or
    ``None``, the input's row count) name subtopics, the diversity metrics from those
    (:mod:`bench.metrics.diversity_labels`), the others as usual, merged."""
    qualified.refuse_homonyms(specs, prof, rows=True, queries=prep.n_queries)  # RecBole's AUC
    div, rest = split_diversity(specs)
    if sub[0] is None and not div:
        return evaluate_prepared(prep, specs, prof, per_query=per_query, backend=backend,
                                 threads=threads)
    results = [summarise(query_parts(prep, g_specs, g_prof, backend=backend, threads=threads),
                         g_specs, g_prof, per_query=per_query)
               for g_prof, g_specs in (qualified.groups(rest, prof) if rest else [])]
    results += subtopic_results(prep, *sub, div, prof, per_query=per_query)
    return qualified.merge(results, specs, prof)


def _check_options(*, per_query: bool, sort_by_qid: bool, threads: int | None) -> None:
    """The flags are bools; ``threads`` is ``None`` or an integer >= 1 (a bool is refused)."""
    check_flags(per_query=per_query, sort_by_qid=sort_by_qid)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int | np.integer)
                                or threads < 1):
        raise ConfigError(f"threads must be an integer >= 1 (or None: the usable CPUs), got "
                          f"{threads!r}")


def _profile_and_specs(profile: str | Profile | None, metrics: str | Iterable[str],
                       backend: str) -> tuple[Profile, list[MetricSpec], str]:
    """The profile (default ``ltrbench``) and the metrics resolved against it (peer names keep
    their tool's profile unless ``profile`` is given); then ``backend`` checked, as spelled."""
    prof = given_profile(profile if profile is not None else "ltrbench")
    specs = qualified.resolve(parse_metrics(metrics, repeated="refuse"), prof,
                              explicit=profile is not None)
    backend = str(spelled_choice(backend, BACKENDS, "backend"))  # 'NumPy': numpy, said once
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; {choice_hint(backend, BACKENDS)}"
                          f"valid: {', '.join(BACKENDS)}")
    return prof, specs, backend


def _input_arrays(
    labels: Any, scores: Any, *, qid: Any, group: Any, weights: Any, docno: Any,
    sort_by_qid: bool, label: str | None, score: str | None, padding: str = "none",
) -> tuple[Any, tuple[Any, Any, Any, Any, Any, bool]]:
    """:func:`evaluate`'s inputs as arrays: a DataFrame's columns (rows grouped stably by query,
    returned with the frame's columns to locate errors), or the arrays given, after checking
    that pandas Series among them share one index. Returns ``(frame columns or None, (labels,
    scores, qid, docno, weights, sort_by_qid))``."""
    cols = None
    if _is_frame(labels):  # a DataFrame: its columns, rows grouped stably by query
        from bench.metrics.frames import frame_arrays

        cols = frame_arrays(labels, scores=scores, label=label, score=score, qid=qid,
                            docno=docno, weights=weights, group=group, padding=padding)
        return cols, (cols.labels, cols.scores, cols.qid, cols.docno, cols.weights, True)
    check_rows(labels, scores, label, score)  # qrels, a dict of columns, a pyarrow Table ...
    if "pandas" in sys.modules:  # a Series can exist only once pandas is loaded
        from bench.data.python_args import same_index

        same_index({"labels": labels, "scores": scores, "qid": qid, "docno": docno,
                    "weights": weights})  # per-row ones (group sizes are per query)
    return cols, (labels, scores, qid, docno, weights, sort_by_qid)


def _is_frame(obj: object) -> bool:
    """Whether ``obj`` is a pandas DataFrame (pandas not loaded: none can exist; not imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def check_flags(**flags: object) -> None:
    """A yes/no argument is a bool: ``per_query="no"`` is refused, not read as true."""
    for name, value in flags.items():
        if not isinstance(value, bool | np.bool_):
            raise ConfigError(f"{name} must be True or False, got {type(value).__name__} "
                              f"{value!r}")


def evaluate_prepared(
    prep: Prepared,
    specs: list[MetricSpec],
    prof: Profile,
    *,
    per_query: bool = False,
    backend: str = "auto",
    judged: Judged | None = None,
    threads: int | None = None,
) -> EvaluationResult:
    """:func:`evaluate` on validated inputs (``judged``: unscored judged documents, see TREC).

    Specs with their own profile (trec_eval / ir_measures names, ``profile:name``) are evaluated
    per profile and merged (:mod:`bench.metrics.qualified`).
    """
    results = [
        summarise(query_parts(prep, g_specs, g_prof, backend=backend, threads=threads,
                              judged=judged if g_prof.idcg_basis == "qrels" else None),
                  g_specs, g_prof, per_query=per_query)
        for g_prof, g_specs in qualified.groups(specs, prof)
    ]
    return qualified.merge(results, specs, prof)


def _score_place(prep: Prepared, i: int) -> tuple[int | None, str]:
    """What names prepared row ``i`` in an error: its query and document where the input has
    document ids (TREC runs: their rows are not the file's lines), else its 1-based input row."""
    if prep.docno is None:
        return (i if prep.order is None else int(prep.order[i])) + 1, ""
    q = int(np.searchsorted(prep.offsets, i, side="right")) - 1
    return None, f" (query {prep.query_ids[q]!s}, document {prep.docno[i]!s})"


def query_parts(
    prep: Prepared,
    specs: list[MetricSpec],
    prof: Profile,
    *,
    backend: str = "auto",
    judged: Judged | None = None,
    threads: int | None = None,
) -> QueryParts:
    """The per-query pieces of :func:`evaluate_prepared` (see :mod:`bench.metrics.query_parts`)."""
    if prof.query_weights == "ignore":
        prep = dataclasses.replace(prep, query_weights=None, row_weights=None)
    elif prof.query_weights == "not_in_tool":  # used as given, and said (trec_eval has none)
        warn_tool_weights(prof.name, prep.query_weights)
    elif prof.query_weights != "use":  # LightGBM's, XGBoost's, CatBoost's float32 weights
        prep = float32_query_weights(prep, mean=prof.query_weights == "float32_mean")
    if prof.run_depth is not None or prof.judged_only:  # trec_eval -M, -J
        if judged is None and prof.idcg_basis == "qrels":  # arrays: every row is judged, and
            judged = Judged(np.zeros(0), np.zeros(0, dtype=np.int64))  # a cut one stays so
        prep, judged = cut_run(prep, prof, judged, tie_key(prep, prof))
    empty = np.diff(prep.offsets) == 0
    if empty.any():  # padding only, or nothing judged under -J: ranked as an empty list
        return _with_empty_queries(prep, specs, prof, empty, backend=backend, judged=judged,
                                   threads=threads)
    check_labels(prep, prof, specs)
    if any(s.family == "auc" for s in specs):  # per query, as the tool reads each
        auc_label_rule(prep.labels, prep.offsets, prep.query_ids, prof)
    refuse_flushed_scores(prep.scores, prof.score_dtype, lambda i: _score_place(prep, i))
    refuse_unfiltered({s.family for s in specs}, prof)
    request = build_request(specs, prof)
    comps, used = _components(prep, prof, request, backend, judged, threads)
    values: dict[str, NDArray[np.float64]] = {}
    blanks: dict[str, NDArray[np.bool_]] = {}
    sums: dict[str, tuple[float, float]] = {}
    for spec in specs:
        if spec.pointwise:
            v, err_sum, weight_sum = aggregate.pointwise(spec.family, prep.labels,
                                                         _profile_scores(prep, prof), prep.offsets,
                                                         prep.row_weights)
            values[spec.name] = v
            sums[spec.name] = (err_sum, weight_sum)
            continue
        values[spec.name], blanks[spec.name] = aggregate.per_query_values(spec, comps, prof)
    mean_weights = {s.name: w for s in specs if not s.pointwise
                    if (w := aggregate.mean_weight(s, comps, prof)) is not None}
    stand_in_ties(prep.query_ids, comps.ties, request.ties_k, prof, prep.docno is not None)
    return QueryParts(
        query_ids=prep.query_ids, values=values, blank=blanks, query_weights=prep.query_weights,
        has_gain=comps.has_gain, n=comps.n, ties=comps.ties, pointwise_sums=sums,
        n_documents=int(prep.labels.shape[0]), backend=used, ties_k=request.ties_k,
        mean_weights=mean_weights,
    )


def _with_empty_queries(prep: Prepared, specs: list[MetricSpec], prof: Profile,
                        empty: NDArray[np.bool_], *, backend: str, judged: Judged | None,
                        threads: int | None) -> QueryParts:
    """:func:`query_parts` where some queries have no document left (padding rows only, or
    nothing judged under ``judged_only``): those are evaluated as queries the run does not rank
    (:func:`bench.metrics.missing.missing_parts`: R and the gains from the judged documents not
    retrieved, if the IDCG basis collects them), the others as usual; queries keep their order."""
    full = np.flatnonzero(~empty)
    idle = np.flatnonzero(empty)
    parts: list[QueryParts] = []
    ties_k = build_request(specs, prof).ties_k
    if full.shape[0]:
        renumber = np.cumsum(~empty) - 1
        sub_judged = judged
        if judged is not None:
            inside = ~empty[judged.query]
            sub_judged = dataclasses.replace(judged, labels=judged.labels[inside],
                                             query=renumber[judged.query[inside]])
        sub = dataclasses.replace(
            prep, offsets=np.concatenate([prep.offsets[:-1][full], prep.offsets[-1:]]),
            query_ids=prep.query_ids[full],
            query_weights=None if prep.query_weights is None else prep.query_weights[full])
        parts.append(query_parts(sub, specs, prof, backend=backend, judged=sub_judged,
                                 threads=threads))
    r_judged = np.zeros(idle.shape[0])
    has_gain = np.zeros(idle.shape[0], dtype=bool)
    if judged is not None and judged.labels.shape[0]:
        where = np.searchsorted(idle, judged.query)
        mine = (where < idle.shape[0]) & (idle[np.minimum(where, idle.shape[0] - 1)] == judged.query)
        r_judged = np.bincount(where[mine], weights=relevant_rows(prof, judged.labels[mine]),
                               minlength=idle.shape[0]).astype(np.float64)
        has_gain = np.bincount(where[mine], weights=gains(prof, judged.labels[mine]) > 0,
                               minlength=idle.shape[0]) > 0
    blank = missing_parts(prep.query_ids[idle], r_judged, has_gain, specs, prof, ties_k=ties_k,
                          backend=parts[0].backend if parts else "none")
    if prep.query_weights is not None:
        blank = dataclasses.replace(blank, query_weights=prep.query_weights[idle])
    every = combine([*parts, blank])
    return take(every, np.argsort(np.concatenate([full, idle]), kind="stable"))


def _components(
    prep: Prepared,
    prof: Profile,
    request: Request,
    backend: str,
    judged: Judged | None,
    threads: int | None,
) -> tuple[Components, str]:
    tiekey = tie_key(prep, prof)  # one key (a sort of the document ids) for every kernel
    comps, used = _kernel_components(prep, prof, request, backend, judged, threads, tiekey)
    if ranked_request(request):
        twins = backend if used == "numba" else "numpy"  # compiled twins beside the compiled kernel
        comps.values.update(_judged_values(prep, prof, request, judged, comps, tiekey, twins, threads))
    return comps, used


def _profile_scores(prep: Prepared, prof: Profile) -> NDArray[np.float64]:
    """The scores as the profile ranks them: rounded to float32 first under ``score_dtype``."""
    if prof.score_dtype == "float32":
        return prep.scores.astype(np.float32).astype(np.float64)
    return prep.scores


def _unjudged_zero(prof: Profile, judged: Judged | None) -> NDArray[np.bool_] | None:
    """Rows whose gain is forced to 0 (``unjudged_gain="zero"``), or ``None``."""
    if prof.unjudged_gain != "zero" or judged is None or judged.unjudged is None:
        return None
    return judged.unjudged if judged.unjudged.any() else None


def _row_gains(prof: Profile, labels: NDArray[np.float64], zero: NDArray[np.bool_] | None
               ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Gain and relevance of each row under ``prof``; rows in ``zero`` gain 0, not relevant."""
    g = gains(prof, labels)
    rel = relevant_rows(prof, labels)
    if zero is not None:
        g = np.where(zero, 0.0, g)
        rel = rel & ~zero
    return g, rel


def _judged_values(
    prep: Prepared, prof: Profile, request: Request, judged: Judged | None, comps: Components,
    tiekey: NDArray[np.int64] | None, twins: str, threads: int | None,
) -> dict[tuple[str, int | None], NDArray[np.float64]]:
    """R-precision, bpref and the other ranked sums (:mod:`bench.metrics.kernels.judged`), for
    either backend (``twins``: which compiled twins, ``judged_components``' ``backend``)."""
    unjudged = None if judged is None else judged.unjudged
    g, rel = _row_gains(prof, prep.labels, _unjudged_zero(prof, judged))
    nonrel = ~rel if unjudged is None else ~rel & ~unjudged
    n_nonrel = np.add.reduceat(nonrel.astype(np.float64), prep.offsets[:-1])
    if judged is not None and judged.query.shape[0]:
        extra_nonrel = ~relevant_rows(prof, judged.labels)
        n_nonrel = n_nonrel + np.bincount(judged.query, weights=extra_nonrel,
                                          minlength=prep.n_queries)
    return judged_components(
        rel.astype(np.float64), nonrel.astype(np.float64), g, _profile_scores(prep, prof),
        prep.offsets, ties=prof.ties, tiekey=tiekey, r_basis=comps.r_basis, n_nonrel=n_nonrel,
        request=request, unjudged=unjudged, pooled=None if judged is None else judged.pooled,
        backend=twins, threads=threads,
        labels=prep.labels, pair_ties=prof.pair_ties,
    )


def _kernel_components(
    prep: Prepared,
    prof: Profile,
    request: Request,
    backend: str,
    judged: Judged | None,
    threads: int | None,
    tiekey: NDArray[np.int64] | None,
) -> tuple[Components, str]:
    f32 = prof.score_dtype == "float32"
    zero = _unjudged_zero(prof, judged)
    max_n = int(np.max(np.diff(prep.offsets)))
    if judged is not None and judged.query.shape[0]:
        extra_n = np.bincount(judged.query, minlength=prep.n_queries)
        max_n = max(max_n, int(np.max(np.diff(prep.offsets) + extra_n)))
    if prof.nonpositive_scores == "not_relevant":  # a hidden row also enters R as an extra
        max_n *= 2
    disc = discount_table(prof, max_n + 1)
    top = prep.max_label
    if judged is not None and judged.labels.shape[0]:
        top = max(top, float(judged.labels.max()))
    numpy_only = needs_numpy_kernel(prof, request)
    use_numba = backend in ("numba", "python") or (
        backend == "auto" and prep.integer_labels and top < _MAX_TABLE and not numpy_only
    )
    if use_numba and numpy_only:
        raise ConfigError(f"backend {backend!r} averages AP over tied orders; profile "
                          f"{prof.name!r} reads it at each distinct score: use backend='numpy'")
    if use_numba:
        if not prep.integer_labels or top >= _MAX_TABLE:
            raise ConfigError(
                f"backend {backend!r} needs integer labels below {_MAX_TABLE}; use "
                "backend='numpy'"
            )
        tables = label_tables(prof, int(top))
        labels = prep.labels
        if zero is not None:  # unjudged rows take a stand-in label of gain 0
            labels = np.where(zero, float(tables.size), labels)
            tables = with_zero_label(tables)
        hide = hidden_rows(prof, lambda: _profile_scores(prep, prof),
                           lambda: tables.rel[labels.astype(np.int64)] > 0)
        if hide is not None:  # nonpositive_scores: no hit, still in R (bench.metrics.score_rules)
            labels, tables = hide_labels(labels, tables, hide)
        extra_hist = None
        if judged is not None:
            extra_hist = np.zeros((prep.n_queries, tables.size), dtype=np.int64)
            np.add.at(extra_hist, (judged.query, judged.labels.astype(np.int64)), 1)
        if hide is not None:
            extra_hist = hidden_counts(extra_hist, hide, prep.offsets, tables.size)
        kernel, used = _label_table_kernel(backend, labels.shape[0])
        comps = kernel(
            labels, prep.scores, prep.offsets, f32=f32, ties=prof.ties, tiekey=tiekey,
            gain=tables.gain, rel=tables.rel, err_r=np.nan_to_num(tables.err, nan=0.0),
            order=tables.order, disc=disc, request=request, extra_hist=extra_hist,
            threads=threads,
        )
        return comps, used
    extra: dict[str, Any] = {}
    if judged is not None:
        extra = {
            "extra_gain": gains(prof, judged.labels),
            "extra_rel": relevant_rows(prof, judged.labels).astype(np.float64),
            "extra_query": judged.query,
        }
    g, rel = _row_gains(prof, prep.labels, zero)
    hide = hidden_rows(prof, lambda: _profile_scores(prep, prof), lambda: rel)
    if hide is not None:
        rel, extra = rel & ~hide, hidden_extras(extra, hide, prep.offsets)
    err_r = err_probability(prof, prep.labels) if request.needs_err else None
    if zero is not None and err_r is not None:
        err_r = np.where(zero, 0.0, err_r)
    comps = numpy_components(
        g, rel.astype(np.float64), err_r,
        _profile_scores(prep, prof), prep.offsets, ties=prof.ties, tiekey=tiekey, request=request, disc=disc, **extra,
        ap_ties=prof.ap_ties,
    )
    return comps, "numpy"


def _label_table_kernel(backend: str, n_rows: int) -> tuple[Any, str]:
    """The compiled kernel, or its interpreted twin (the same numbers) for ``backend="python"``
    and for ``auto`` on a small input while numba is not loaded (:mod:`bench.metrics.kernels.small`)."""
    if backend == "python" or (backend == "auto" and use_small_path(n_rows)):
        return python_components, "python"
    from bench.metrics.kernels.numba_kernel import numba_components

    return numba_components, "numba"
