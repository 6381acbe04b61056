"""``evaluate_trec``: metrics of a TREC run against TREC qrels, as trec_eval selects queries.

Queries: those of the run that have qrels (trec_eval 9.0.8 without ``-c``: run topics without
qrels are skipped, qrels topics without a run are ignored), in qid order (string order). Under a
profile with ``missing="zero"`` (trec_eval ``-c``, ir_measures, ranx) the qrels queries without a run
line are added, scoring 0 in every metric (:mod:`bench.metrics.missing`; per family under
``missing_by_family``), and a :class:`~bench.metrics.missing.MissingQueriesWarning` says how many
there were and what the profile did with them. Labels: the qrels relevance of each retrieved document;
unjudged documents and negative judgments count as 0, and gain 0 under
``unjudged_gain="zero"`` (trec_eval); bpref skips them. Under a profile whose IDCG basis is ``"qrels"`` (trec_eval, ranx), judged
documents that were not retrieved enter the ideal DCG and ``R`` (AP and recall denominators).
Ties follow the profile; ``docno_desc`` uses the run's document ids. A judgment the profile uses
that breaks its label rules (above its largest label, ...) is an error naming where it came from:
the qrels file and line, the dict keys or the DataFrame row (:func:`qrels_where`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.inputs import line_of_data_row
from bench.data.trec import Qrels, Run
from bench.data.trec_objects import QrelsInput, RunInput, as_qrels, as_run
from bench.errors import ConfigError, DataError
from bench.metrics.components import build_request
from bench.metrics.diversity import evaluate_diversity, is_diversity
from bench.metrics.dropped_rows import drop_rows, padding_judgments
from bench.metrics.evaluate import Judged, check_flags, query_parts
from bench.metrics.missing import ir_spelled, missing_parts, missing_query_ids, warn_missing
from bench.metrics.names import MetricSpec, parse_metrics
from bench.metrics.profiles import Profile, get_profile, given_profile
from bench.metrics.qualified import groups, merge, refuse_homonyms, resolve
from bench.metrics.query_parts import QueryParts, combine, summarise, take
from bench.metrics.result import EvaluationResult
from bench.metrics.tables import gains, relevant_rows
from bench.metrics.validate import Prepared, Where, check_labels, prepare


def evaluate_trec(
    qrels_path: QrelsInput,
    run_path: RunInput,
    *,
    metrics: str | Iterable[str],
    profile: str | Profile | None = None,
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
    the TREC query ids (strings). ``backend`` as in :func:`bench.metrics.evaluate`; so is
    ``profile`` (default ``trec_eval``; given explicitly it applies to every peer name of its
    tool's family and refuses the others: :func:`bench.metrics.qualified.resolve`).
    """
    check_flags(per_query=per_query)
    prof = given_profile(profile if profile is not None else "trec_eval")
    specs = resolve(parse_metrics(metrics, repeated="refuse"), prof, explicit=profile is not None)
    refuse_homonyms(specs, prof)  # ranx's hits@k is a count: never ltrbench's hit rate under it
    if any(is_diversity(s) for s in specs):  # subtopic qrels: read and evaluated apart
        return evaluate_diversity(qrels_path, run_path, specs, prof, per_query)
    qrels = as_qrels(qrels_path)
    run = as_run(run_path)
    _refuse_measure_documents(run, qrels)
    joined = _join(qrels, run)  # once, whatever the profiles of the metrics
    _warn_unjudged(qrels, run, joined)
    _warn_written_alike(qrels, run)
    # Names with their own profile (trec_eval / ir_measures names, PROFILE:NAME) are evaluated
    # under it, each group with its own query selection (``missing``), and merged by query id.
    plan = groups([s for s in specs if s.family != "judged"], prof)
    results = [_evaluate_group(qrels, run, joined, g_specs, g_prof, backend, per_query)
               for g_prof, g_specs in plan]
    judged = [s for s in specs if s.family == "judged"]
    for base in dict.fromkeys(get_profile(s.profile) if s.profile else prof for s in judged):
        mine = [s for s in judged if (get_profile(s.profile) if s.profile else prof) is base]
        plan.append((base, mine))
        results.append(_evaluate_judged(qrels, run, joined, mine, base, backend, per_query))
    lacking = missing_query_ids(qrels.qid, run.qid)
    warn_missing(lacking, run.path,
                 [(g, [(s.key, g.missing_for(s.family)) for s in g_specs])
                  for g, g_specs in plan],  # and the run's queries without qrels, if any
                 run_only=missing_query_ids(run.qid, qrels.qid) if lacking.shape[0] else None,
                 ir_spellings=[s.key for s in specs if ir_spelled(s)])
    return merge(results, specs, prof)


def _refuse_measure_documents(run: Run, qrels: Qrels) -> None:
    """A run whose first query retrieves only documents named as metrics (``ndcg_cut_10``,
    ``map``, ``P_5``: two at least, each of three characters or more), none of them judged for
    that query, is an evaluator's per-query result (pytrec_eval's ``evaluate()``, ``{qid:
    {measure: value}}``) given as the run: read as one, every document is unjudged and every
    metric 0. A :class:`DataError` says so. Only the first rows are read (the first query's
    among the first 64), so a run of millions costs nothing more."""
    if not len(run):
        return
    head_q, head_d = run.qid[:64], run.docno[:64]
    docs = [str(d) for d in dict.fromkeys(head_d[head_q == head_q[0]].tolist())]
    if len(docs) < 2 or min(map(len, docs)) < 3:  # 'p', 'r', 'ap', 'rr': plausible ids
        return
    if np.isin(qrels.docno[qrels.qid == head_q[0]], docs).any():  # judged: documents after all
        return
    for d in docs:
        try:
            parse_metrics(d)
        except ConfigError:
            return
    raise DataError(f"query {str(head_q[0])!r} retrieves only documents named as metrics "
                    f"({', '.join(docs[:4])}{', ...' if len(docs) > 4 else ''}): this looks like an "
                    "evaluator's per-query result ({qid: {measure: value}}, pytrec_eval's "
                    "evaluate()), not a run ({qid: {docno: score}}); pass the run that was "
                    "evaluated", path=run.path)


#: The fewest documents (in queries with qrels) of a run that :func:`_warn_unjudged` reads
#: "none judged" into.
UNJUDGED_AT_LEAST = 5


class UnjudgedRunWarning(UserWarning):
    """A run none of whose documents (in its queries with qrels) the qrels judge, or whose
    documents the qrels judge only under another spelling of the same visible id."""


def _warn_unjudged(qrels: Qrels, run: Run, joined: _Joined | None) -> None:
    """An :class:`UnjudgedRunWarning` when no document the run retrieves for its queries with
    qrels is judged (of :data:`UNJUDGED_AT_LEAST` at least): graded 0 as trec_eval grades it,
    but most likely document ids written another way (``doc7.txt`` beside ``doc7``, another id
    field, another case)."""
    if joined is None or joined.rel.shape[0] < UNJUDGED_AT_LEAST or not np.isnan(joined.rel).all():
        return  # a run of a few documents may retrieve only unjudged ones by chance
    i = int(np.flatnonzero(np.isin(run.qid, qrels.qid))[0])
    q, doc = str(run.qid[i]), str(run.docno[i])
    judged = str(qrels.docno[qrels.qid == q][0])
    n, m = joined.rel.shape[0], joined.prep.query_ids.shape[0]
    warnings.warn(
        f"{run.path}: none of the {n} documents it retrieves for its {m} "
        f"{'query' if m == 1 else 'queries'} with qrels is judged in {qrels.path} (query {q!r}: "
        f"the run has {doc!r}, the qrels judge {judged!r}): document ids written another way "
        "(a file extension, another id field, another case)? graded as trec_eval grades it, "
        "every document unjudged", UnjudgedRunWarning, stacklevel=3)


def _warn_written_alike(qrels: Qrels, run: Run) -> None:
    """An :class:`UnjudgedRunWarning` when a retrieved document is judged only under another
    spelling of the same visible id (``café`` in NFD beside NFC, a full-width digit, a
    zero-width space): unjudged, as trec_eval compares bytes, and said
    (:func:`bench.data.input_ids.written_alike`)."""
    from bench.data.input_ids import written_alike

    alike = written_alike((qrels.qid, qrels.docno), (run.qid, run.docno))
    if alike is None:
        return
    (q, d), (jq, jd), n = alike
    warnings.warn(
        f"{run.path}: {n} retrieved document{'s' if n != 1 else ''} judged in {qrels.path} only "
        f"under another spelling of the same visible id (the run has query {q!r}, document "
        f"{d!r}; the qrels {jq!r}, {jd!r}: NFC and NFD forms, full-width characters or an "
        "invisible character): graded as trec_eval grades them, unjudged; if they are one "
        "document, write both files' ids in one form (unicodedata.normalize('NFC', id))",
        UnjudgedRunWarning, stacklevel=3)


@dataclass(frozen=True)
class _Joined:
    """The run's rows that have qrels, joined with the judgments once for every profile group.

    ``prep``: the rows grouped by query (query ids in string order), labels = the relevance
    (0 for unjudged and negative judgments); ``rel``: each row's judgment (NaN: unjudged);
    ``extra_rel`` / ``extra_query``: the judgments (relevance >= 0) of the run's queries whose
    document was not retrieved, in qrels order, with the query's number; ``retrieved``: for each
    qrels row, whether the run retrieved its document.
    """

    prep: Prepared
    rel: NDArray[np.float64]
    extra_rel: NDArray[np.float64]
    extra_query: NDArray[np.int64]
    retrieved: NDArray[np.bool_]


def _join(qrels: Qrels, run: Run) -> _Joined | None:
    """:class:`_Joined` (``None`` when no query of the run has qrels), by a sorted join on
    (query, document) codes instead of a Python lookup per row (NumPy: no pandas import)."""
    keep = np.isin(run.qid, qrels.qid)
    if not keep.any():
        return None
    names, qindex = np.unique(run.qid[keep], return_inverse=True)
    qindex = qindex.ravel()
    order = np.argsort(qindex, kind="stable")
    qindex, r_doc, r_score = qindex[order], run.docno[keep][order], run.score[keep][order]
    # A (query, document) pair is judged once and retrieved once: each run row meets at most
    # one judgment, each judgment at most one run row.
    r_code, j_code = _pair_codes(names[qindex], r_doc, qrels.qid, qrels.docno)
    by_code = np.argsort(j_code, kind="stable")
    at = np.minimum(np.searchsorted(j_code, r_code, sorter=by_code), max(j_code.shape[0] - 1, 0))
    found = j_code[by_code[at]] == r_code if j_code.shape[0] else np.zeros(r_code.shape[0], bool)
    rel = np.where(found, qrels.rel[by_code[at]], np.nan).astype(np.float64)
    hit = np.isin(j_code, r_code)
    pos = np.minimum(np.searchsorted(names, qrels.qid), names.shape[0] - 1)
    pos = np.where(names[pos] == qrels.qid, pos, -1)
    extra = (pos >= 0) & (qrels.rel >= 0) & ~hit
    labels = np.maximum(np.nan_to_num(rel, nan=0.0), 0.0)
    prep = prepare(labels, r_score, qid=qindex, group=None, weights=None, docno=r_doc,
                   docno_checked=True)  # the TREC readers refused missing and repeated ids
    prep.query_ids = names
    return _Joined(prep, rel, qrels.rel[extra].astype(np.float64), pos[extra].astype(np.int64),
                   hit)


def _pair_codes(q1: NDArray[np.str_], d1: NDArray[np.str_], q2: NDArray[np.str_],
                d2: NDArray[np.str_]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """One integer per (query, document) pair, equal for equal pairs, for two lists of pairs."""
    _, qi = np.unique(np.concatenate([q1, q2]), return_inverse=True)
    docs, di = np.unique(np.concatenate([d1, d2]), return_inverse=True)
    code = qi.ravel().astype(np.int64) * np.int64(docs.shape[0]) + di.ravel()
    return code[: q1.shape[0]], code[q1.shape[0]:]


def _evaluate_judged(qrels: Qrels, run: Run, joined: _Joined | None, specs: list[MetricSpec],
                     base: Profile, backend: str, per_query: bool) -> EvaluationResult:
    """``Judged@k`` (ir_measures, ``providers/judged_provider.py``): the fraction of the top
    ``min(k, n)`` retrieved documents that have a judgment (any relevance, negative included),
    the run sorted by score descending then document id ascending, float64 scores. It is P@k
    with every judged document relevant, the denominator ``min(k, n)`` and ``docno_asc`` ties;
    the queries are those of the spec's profile (ir_measures: trec_eval-c, a qrels query without
    a run line scores 0)."""
    every = Qrels(qrels.qid, qrels.docno, np.ones_like(qrels.rel), qrels.path)
    if joined is not None:
        judged = (~np.isnan(joined.rel)).astype(np.float64)
        joined = replace(joined, prep=replace(joined.prep, labels=judged,
                                              max_label=float(judged.max()), integer_labels=True),
                         rel=judged, extra_rel=joined.extra_rel[:0],
                         extra_query=joined.extra_query[:0])
    prof = replace(base, name=f"{base.name}+judged", missing=base.missing_for("judged"),
                   missing_by_family=(), ties="docno_asc", gain="linear",
                   precision_denominator="min_k_n", relevance_threshold=1.0,
                   max_relevant_label=None, max_label=None, score_dtype="float64",
                   binary_labels_for_binary_metrics=False, unjudged_gain="label0",
                   map_denominator="min_r_k", idcg_basis="list")
    as_p = [replace(s, family="p", profile=None, overrides=()) for s in specs]
    return _evaluate_group(every, run, joined, as_p, prof, backend, per_query)


def _evaluate_group(qrels: Qrels, run: Run, joined: _Joined | None, specs: list[MetricSpec],
                    prof: Profile, backend: str, per_query: bool) -> EvaluationResult:
    """:func:`evaluate_trec` of metrics that share one profile (metrics whose families treat
    missing queries differently, ``missing_by_family``, are evaluated apart and merged)."""
    # "zero" first: the diagnostics (query counts) are those of the larger query set
    policies = sorted({prof.missing_for(s.family) for s in specs}, key=lambda p: p != "zero")
    if len(policies) > 1:
        parts_by = [_evaluate_group(qrels, run, joined,
                                    [s for s in specs if prof.missing_for(s.family) == pol],
                                    replace(prof, missing=pol, missing_by_family=()), backend,
                                    per_query)
                    for pol in policies]
        # keyed by the canonical names, as every group's result is: the outer merge maps them
        # to the users' spellings once (a second mapping lost 'p@2' spelled 'precision@2')
        named = [replace(s, label="") for s in specs]
        return replace(merge(parts_by, named, parts_by[0].profile), profile=prof)
    in_run = joined.prep.query_ids if joined is not None else np.asarray([], dtype=str)
    zero = (policies[0] if policies else prof.missing) == "zero"
    _check_qrels_labels(qrels, joined, in_run, specs, prof, zero)
    missing = _missing_queries(qrels.qid, qrels.rel, in_run, prof) if zero else None
    if joined is None and (missing is None or not missing[0].shape[0]):
        raise DataError(
            "no query of the run has relevance judgments in the qrels file "
            f"{qrels.path} (query ids are compared as strings)",
            path=run.path,
        )
    parts: list[QueryParts] = []
    if joined is not None:
        parts.append(_run_parts(qrels, joined, specs, prof, backend))
    if missing is not None and missing[0].shape[0]:
        ties_k = parts[0].ties_k if parts else build_request(specs, prof).ties_k
        parts.append(missing_parts(missing[0], missing[1], missing[2], specs, prof,
                                   ties_k=ties_k, backend=parts[0].backend if parts else "none"))
    every = combine(parts)
    if len(parts) > 1:
        every = take(every, np.argsort(every.query_ids.astype(str), kind="stable"))
    return summarise(every, specs, prof, per_query=per_query)


def _check_qrels_labels(qrels: Qrels, joined: _Joined | None, in_run: NDArray[Any],
                        specs: list[MetricSpec], prof: Profile, zero: bool) -> None:
    """The profile's label rules (:func:`bench.metrics.validate.check_labels`) on the qrels
    judgments this group uses, before any join hides where they came from: those of retrieved
    documents, of the run's queries' unretrieved documents under an IDCG basis ``"qrels"``, and
    of the qrels queries without a run line when they score 0 (``zero``). A negative judgment is
    unjudged (relevance 0, as in trec_eval). The error names the judgment's qrels line
    (``q.txt:3``), the keys of a dict (``qrels['1']['c']``) or the row of a DataFrame."""
    ran = np.isin(qrels.qid, in_run)
    used = ran & (joined.retrieved if joined is not None else False)
    if prof.idcg_basis == "qrels":
        used |= ran
    if zero:
        used |= ~ran
    rows = np.flatnonzero(used & (qrels.rel > 0))  # 0 and negative labels break no rule
    if not rows.shape[0]:
        return
    labels = qrels.rel[rows].astype(np.float64)
    prep = Prepared(labels, np.zeros_like(labels), np.asarray([0, rows.shape[0]], dtype=np.int64),
                    np.asarray([0]), None, None, None, float(labels.max()), True)
    check_labels(prep, prof, specs, locate=lambda i: qrels_where(qrels, int(rows[i])))


def qrels_where(qrels: Qrels, i: int) -> Where:
    """Where qrels row ``i`` (0-based) came from: ``file:line`` of a qrels file (lines counted
    as :func:`bench.data.inputs.line_of_data_row` counts them: blank and ``#`` comment lines
    are not judgments), the keys ``qrels['q']['d']`` of a dict (or ranx ``to_dict()``), the
    1-based row of a DataFrame (:mod:`bench.data.trec_objects` names each source)."""
    where = qrels.path
    if where == "qrels DataFrame":
        return Where(path=where, row=i + 1, column="rel", what="relevance")
    if where == "qrels dict" or (where.startswith("qrels ") and where.endswith(".to_dict()")):
        base = "qrels" if where == "qrels dict" else where
        return Where(path=f"{base}[{str(qrels.qid[i])!r}][{str(qrels.docno[i])!r}]",
                     what="relevance")
    try:
        line = line_of_data_row(where, i + 1)
    except (OSError, DataError):  # the file changed or went away since it was read
        line = None
    return Where(path=where, line=line, row=None if line is not None else i + 1,
                 what="relevance")


def _run_parts(qrels: Qrels, joined: _Joined, specs: list[MetricSpec], prof: Profile,
               backend: str) -> QueryParts:
    """Per-query parts of the run's queries that have qrels (judged documents that were not
    retrieved enter under an IDCG basis ``"qrels"``)."""
    rel, prep = joined.rel, joined.prep
    pad = padding_judgments(rel, prof)  # allRank -1 / TF-Ranking < 0: padding, as in arrays
    if pad is not None:
        rel, prep = rel[~pad], drop_rows(prep, pad)
    unjudged = ~(rel >= 0)  # not in the qrels (NaN), or judged with a negative relevance
    extra = prof.idcg_basis == "qrels"
    judged = Judged(joined.extra_rel if extra else joined.extra_rel[:0],
                    joined.extra_query if extra else joined.extra_query[:0], unjudged=unjudged,
                    pooled=rel < 0)  # NaN (no judgment) compares False
    return query_parts(prep, specs, prof, judged=judged, backend=backend)


def _missing_queries(
    q_qid: NDArray[Any], q_rel: NDArray[Any], in_run: NDArray[Any], prof: Profile
) -> tuple[NDArray[Any], NDArray[np.float64], NDArray[np.bool_], float | None]:
    """Qrels queries without a run line: their ids, judged relevant count, whether a judgment
    has a positive gain, and the largest relevance >= 0 (``None``: none). A query whose only
    judgments are negative is one of them (R = 0: the profile's blank-query value): ir_measures
    (trec_eval ``-c``, ``providers/base.py:18-27``) and ranx (``make_comparable``) score it 0
    and count it."""
    rel = np.asarray(q_rel, dtype=np.float64)
    qids = np.asarray(q_qid)
    out = ~np.isin(qids, in_run)
    qids, rel = qids[out], rel[out]
    names, inv = np.unique(qids, return_inverse=True)
    inv = inv.ravel()
    n_q = int(names.shape[0])
    judged = rel >= 0
    level = np.where(judged, rel, 0.0)  # a negative judgment: not relevant, no gain
    r = np.bincount(inv, weights=relevant_rows(prof, level) & judged,
                    minlength=n_q).astype(np.float64)
    has_gain = np.bincount(inv, weights=(gains(prof, level) > 0) & judged, minlength=n_q) > 0
    return names, r, has_gain, (float(rel[judged].max()) if judged.any() else None)
