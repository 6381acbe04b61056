"""``evaluate_trec``: metrics of a TREC run against TREC qrels, as trec_eval selects queries.

Queries: those of the run that have qrels (trec_eval 9.0.8 without ``-c``: run topics without
qrels are skipped, qrels topics without a run are ignored), in qid order (string order). Under a
profile with ``missing="zero"`` (trec_eval ``-c``, ir_measures) the qrels queries with a judgment
(relevance >= 0) but no run line are added, scoring 0 in every metric
(:mod:`bench.metrics.missing`). Labels: the qrels relevance of each retrieved document;
unjudged documents and negative judgments count as 0, and gain 0 under
``unjudged_gain="zero"`` (trec_eval); bpref skips them. Under a profile whose IDCG basis is ``"qrels"`` (trec_eval, ranx), judged
documents that were not retrieved enter the ideal DCG and ``R`` (AP and recall denominators).
Ties follow the profile; ``docno_desc`` uses the run's document ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.trec import Qrels, Run
from bench.data.trec_objects import QrelsInput, RunInput, as_qrels, as_run
from bench.errors import DataError
from bench.metrics.components import build_request
from bench.metrics.evaluate import Judged, query_parts
from bench.metrics.missing import missing_parts, take
from bench.metrics.names import MetricSpec, parse_metrics
from bench.metrics.profiles import Profile, get_profile
from bench.metrics.qualified import groups, merge
from bench.metrics.query_parts import QueryParts, combine, summarise
from bench.metrics.result import EvaluationResult
from bench.metrics.tables import gains, relevant_rows
from bench.metrics.validate import prepare


def evaluate_trec(
    qrels_path: QrelsInput,
    run_path: RunInput,
    *,
    metrics: str | Iterable[str],
    profile: str | Profile = "trec_eval",
    per_query: bool = False,
    backend: str = "auto",
) -> EvaluationResult:
    """Evaluate a run against qrels (see the module docstring for the rules).

    ``qrels_path`` and ``run_path`` may each be a TREC file path, a pandas DataFrame (columns
    found by common names such as ``qid``/``query_id``, ``docno``/``doc_id``, ``rel``/``label``,
    ``score``; any row order; string or integer ids), a dict ``{qid: {docno: rel_or_score}}``
    (pytrec_eval/ranx layout) or a ranx ``Qrels``/``Run``: see
    :func:`bench.data.trec_objects.as_qrels` / :func:`~bench.data.trec_objects.as_run` (to name
    a frame's columns, call those and pass their result). Within a query, rows keep their order,
    which decides ties under a row-order tie profile. The per-query table's ``qid`` column holds
    the TREC query ids (strings). ``backend`` as in :func:`bench.metrics.evaluate`.
    """
    prof = get_profile(profile)
    specs = parse_metrics(metrics)
    qrels = as_qrels(qrels_path)
    run = as_run(run_path)
    judged_q = set(np.unique(qrels.qid).tolist())
    keep = np.fromiter((q in judged_q for q in run.qid), dtype=bool, count=len(run))
    # Names with their own profile (trec_eval / ir_measures names, PROFILE:NAME) are evaluated
    # under it, each group with its own query selection (``missing``), and merged by query id.
    judged = [s for s in specs if s.family == "judged"]
    rest = [s for s in specs if s.family != "judged"]
    results = [_evaluate_group(qrels, run, keep, g_specs, g_prof, backend, per_query)
               for g_prof, g_specs in groups(rest, prof)]
    if judged:
        results.append(_judged(qrels, run, keep, judged, prof, backend, per_query))
    return merge(results, specs, prof)


def _judged(qrels: Qrels, run: Run, keep: NDArray[np.bool_], specs: list[MetricSpec],
            call: Profile, backend: str, per_query: bool) -> EvaluationResult:
    """``Judged@k`` (ir_measures, ``providers/judged_provider.py``): the fraction of the top
    ``min(k, n)`` retrieved documents that have a judgment (any relevance, negative included),
    the run sorted by score descending then document id ascending, float64 scores. It is P@k
    with every judged document relevant, the denominator ``min(k, n)`` and ``docno_asc`` ties;
    the queries are those of the spec's profile (ir_measures: trec_eval-c, a qrels query without
    a run line scores 0)."""
    every = Qrels(qrels.qid, qrels.docno, np.ones_like(qrels.rel), qrels.path)
    out = []
    for spec in specs:
        base = get_profile(spec.profile) if spec.profile is not None else call
        prof = replace(base, name=f"{base.name}+judged", ties="docno_asc", gain="linear",
                       precision_denominator="min_k_n", relevance_threshold=1.0,
                       max_relevant_label=None, max_label=None, score_dtype="float64",
                       binary_labels_for_binary_metrics=False, unjudged_gain="label0",
                       map_denominator="min_r_k", idcg_basis="list")
        as_p = replace(spec, family="p", profile=None, overrides=())
        out.append(_evaluate_group(every, run, keep, [as_p], prof, backend, per_query))
    return merge(out, specs, call) if len(out) > 1 else out[0]


def _evaluate_group(qrels: Qrels, run: Run, keep: NDArray[np.bool_], specs: list[MetricSpec],
                    prof: Profile, backend: str, per_query: bool) -> EvaluationResult:
    """:func:`evaluate_trec` of metrics that share one profile."""
    missing = _missing_queries(qrels.qid, qrels.rel, set(run.qid[keep].tolist()), prof) \
        if prof.missing == "zero" else None
    if not keep.any() and (missing is None or not missing[0].shape[0]):
        raise DataError(
            "no query of the run has relevance judgments in the qrels file "
            f"{qrels.path} (query ids are compared as strings)",
            path=run.path,
        )
    parts: list[QueryParts] = []
    if keep.any():
        parts.append(_run_parts(qrels, run, keep, specs, prof, backend))
    if missing is not None and missing[0].shape[0]:
        top = float(missing[3]) if missing[3] is not None else None
        if top is not None and prof.max_label is not None and top > prof.max_label:
            raise DataError(
                f"relevance {top:g} is above {prof.max_label}, the largest label profile "
                f"{prof.name!r} accepts",
                path=qrels.path,
            )
        ties_k = parts[0].ties_k if parts else build_request(
            specs, prof.default_k, map_hits=prof.map_denominator == "hits_k").ties_k
        parts.append(missing_parts(missing[0], missing[1], missing[2], specs, prof,
                                   ties_k=ties_k, backend=parts[0].backend if parts else "none"))
    every = combine(parts)
    if len(parts) > 1:
        every = take(every, np.argsort(every.query_ids.astype(str), kind="stable"))
    return summarise(every, specs, prof, per_query=per_query)


def _run_parts(qrels: Qrels, run: Run, keep: NDArray[np.bool_], specs: list[MetricSpec],
               prof: Profile, backend: str) -> QueryParts:
    """Per-query parts of the run's queries that have qrels."""
    r_qid = run.qid[keep]
    r_doc = run.docno[keep]
    r_score = run.score[keep]
    names, qindex = np.unique(r_qid, return_inverse=True)
    qindex = qindex.ravel()
    order = np.argsort(qindex, kind="stable")
    qindex, r_doc, r_score = qindex[order], r_doc[order], r_score[order]

    rel_of = {(q, d): r for q, d, r in zip(qrels.qid.tolist(), qrels.docno.tolist(), qrels.rel.tolist(), strict=True)}
    run_names = names[qindex].tolist()
    docs = r_doc.tolist()
    given = np.fromiter(
        (rel_of.get((q, d), -1) for q, d in zip(run_names, docs, strict=True)),
        dtype=np.float64,
        count=len(docs),
    )
    unjudged = given < 0  # not in the qrels, or judged with a negative relevance
    labels = np.maximum(given, 0.0)
    prep = prepare(labels, r_score, qid=qindex, group=None, weights=None, docno=r_doc)
    prep.query_ids = names
    extra_l: list[int] = []
    extra_q: list[int] = []
    if prof.idcg_basis == "qrels":
        retrieved = set(zip(run_names, docs, strict=True))
        pos = {q: i for i, q in enumerate(names.tolist())}
        for q, d, r in zip(qrels.qid.tolist(), qrels.docno.tolist(), qrels.rel.tolist(), strict=True):
            if q in pos and r >= 0 and (q, d) not in retrieved:
                extra_l.append(r)
                extra_q.append(pos[q])
    judged = Judged(np.asarray(extra_l, dtype=np.float64), np.asarray(extra_q, dtype=np.int64),
                    unjudged=unjudged)
    if judged.labels.shape[0]:
        top = float(judged.labels.max())
        if prof.max_label is not None and top > prof.max_label:
            raise DataError(
                f"relevance {top:g} is above {prof.max_label}, the largest label profile "
                f"{prof.name!r} accepts",
                path=qrels.path,
            )
    return query_parts(prep, specs, prof, judged=judged, backend=backend)


def _missing_queries(
    q_qid: NDArray[Any], q_rel: NDArray[Any], in_run: set[str], prof: Profile
) -> tuple[NDArray[Any], NDArray[np.float64], NDArray[np.bool_], float | None]:
    """Qrels queries with a judgment (relevance >= 0) and no run line: their ids, judged relevant
    count, whether a judgment has a positive gain, and the largest relevance (``None``: none)."""
    rel = np.asarray(q_rel, dtype=np.float64)
    judged = rel >= 0
    qids = np.asarray(q_qid)[judged]
    rel = rel[judged]
    out = np.fromiter((q not in in_run for q in qids.tolist()), dtype=bool, count=qids.shape[0])
    qids, rel = qids[out], rel[out]
    names, inv = np.unique(qids, return_inverse=True)
    inv = inv.ravel()
    n_q = int(names.shape[0])
    r = np.bincount(inv, weights=relevant_rows(prof, rel), minlength=n_q).astype(np.float64)
    has_gain = np.bincount(inv, weights=gains(prof, rel) > 0, minlength=n_q) > 0
    return names, r, has_gain, (float(rel.max()) if rel.shape[0] else None)
