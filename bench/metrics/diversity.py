"""Diversity metrics of a TREC run against subtopic qrels: alpha-nDCG, alpha-DCG, nERR-IA and
Precision-IA (from per-row subtopic labels instead: :mod:`bench.metrics.diversity_labels`).

**Qrels.** Diversity qrels as the TREC Web track distributes them and ndeval reads them
(``ndeval.c`` ``processQrels``): ``topic subtopic docno judgment``, the second column the
subtopic (intent) number, a whole number (:func:`bench.data.trec.read_qrels` with
``subtopics=True``). A metric of a family with ``Family.subtopics`` makes ``evaluate_trec``
read its qrels so; nothing else has to be said. A document is relevant to a subtopic when its
judgment is positive and at least the profile's ``relevance_threshold`` (ndeval: judgments are
binary, ``judgment > 1`` read as 1; pyndeval: ``relevance >= relevance_level``); a negative
judgment is not relevant. Refused: a subtopic that is not a whole number, the same (query,
subtopic, document) judged twice (ndeval would count both in the subtopic's relevant documents
but keep the last judgment), a file whose second column is 0 on every line (an ordinary qrels
file, whose second column is TREC's unused iteration: every query would have one subtopic and
alpha-nDCG would be a plain nDCG in disguise), and ordinary metrics in the same call (their
qrels are one judgment per document; evaluate them with an ordinary qrels file).

**Per query** (Clarke et al., SIGIR 2008, section 4; :mod:`bench.metrics.kernels.diversity`)::

    alpha_dcg(a)@k  = sum_{i < k} sum_{j: d_i relevant to j} (1 - a)^{c_j(i)} / log2(i + 2)
    alpha_ndcg(a)@k = alpha_dcg(a)@k / (the same of ndeval's greedy ideal ranking of every
                      document the qrels judge relevant to a subtopic)
    nerr_ia(a)@k    = the same ratio with the discount 1 / (i + 1) instead of 1 / log2(i + 2)
                      (ndeval ``computeERR`` and ``renormalize``: nERR-IA, Chapelle et al.,
                      CIKM 2009, intent-aware ERR over the same greedy ideal)
    precision_ia@k  = (relevant (document, subtopic) pairs in the top k) / (k * subtopics with
                      a relevant judgment): ndeval ``computePrecision`` ``:752-774`` (P-IA,
                      ir_measures ``P_IA``; ``min(k, n)`` under ``precision_denominator="min_k_n"``)

with ``c_j(i)`` the documents above position ``i`` relevant to subtopic ``j`` and ``a`` the
family's parameter (ndeval ``-alpha``, default 0.5). A query none of whose documents is relevant
to any subtopic is blank (ndeval's ``actualSubtopics == 0``: it scores 0 there, as under the
trec_eval profile's ``empty``). ``alpha_dcg`` is the paper's unnormalised sum; ndeval's own
``alpha-DCG`` column (ir_measures ``alpha_DCG``) divides it by an "ideal ideal" that is not
this (``computeDCG``), and is not computed here.

**Queries and order** as every TREC evaluation of ltrbench: the run's queries that have qrels
lines (ndeval ``applyQrels``; run topics without qrels are ignored); under ``missing="zero"``
(ndeval ``-c``, ir_measures) the qrels queries without a run line too, scoring 0. The run is
ranked by score (rounded as the profile's ``score_dtype``), ties by the profile's ``ties``:
``docno_desc`` is ndeval ``-traditional`` (``resultCompareByScore``), ``docno_asc`` pyndeval's
``sorted(..., key=lambda x: (-x[1], x[0]))`` (ir_measures' ``alpha_nDCG``), ``stable`` /
``row_desc`` row order; ndeval without ``-traditional`` sorts by the rank column, which
ltrbench never reads. ndeval computes ranks 1..20 only (``DEPTH``); cutoffs beyond 20 and the
whole list are computed here by the same definition.

Sources (pyndeval commit ``acde21d``): ``src/ndeval.c`` ``processQrels`` ``:882-935``
(``judgment > 1`` read as 1 ``:923``; a judgment added to its subtopic's count ``:847``),
``resultCompareByScore`` ``:470-483`` (``-traditional``: score, then document id descending),
``applyQrels`` ``:1177`` (run topics without qrels skipped), ``actualSubtopics == 0`` leaves
every value 0 (``:676``); ``pyndeval/__init__.py`` ``:153``, ``:160`` (the run sorted by
``(-score, doc id)``), ``:132`` (``relevance >= relevance_level``), ``:76`` (cutoffs <= 20).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

import bench.metrics.kernels.diversity as kernel
from bench.data.trec import Qrels, Run, read_qrels
from bench.data.trec_objects import QrelsInput, RunInput, as_run
from bench.errors import ConfigError, DataError
from bench.metrics.aggregate import family_param, per_query_values
from bench.metrics.components import metric_cutoff
from bench.metrics.families import FAMILIES
from bench.metrics.kernels.components import Components
from bench.metrics.missing import missing_query_ids, warn_missing
from bench.metrics.names import MetricSpec
from bench.metrics.profile import Profile
from bench.metrics.qualified import groups, merge
from bench.metrics.query_parts import QueryParts, summarise
from bench.metrics.result import EvaluationResult

#: Tie rules a diversity metric can follow (one order of the documents; the gain of a document
#: depends on the ones above it, so no tie-averaged or gain-ordered form).
TIES = ("docno_desc", "docno_asc", "stable", "row_desc")
#: The components of the diversity families (``Family.components``): the discount
#: (:func:`bench.metrics.kernels.diversity.weigh`) and whether it is the greedy ideal's sum.
COMPONENTS: dict[str, tuple[str, bool]] = {
    "alpha_dcg": ("log2", False), "alpha_idcg": ("log2", True),
    "err_ia": ("reciprocal", False), "err_ia_ideal": ("reciprocal", True)}


def is_diversity(spec: MetricSpec) -> bool:
    """Whether ``spec`` is of a family that needs subtopic qrels (``Family.subtopics``)."""
    fam = FAMILIES.get(spec.family)
    return fam is not None and fam.subtopics


def subtopic_qrels(obj: QrelsInput) -> Qrels:
    """Diversity qrels from a TREC file (or a :class:`Qrels` read with ``subtopics=True``),
    refused when every line's subtopic is 0 (an ordinary qrels file)."""
    if isinstance(obj, str | os.PathLike):
        qrels = read_qrels(obj, subtopics=True)
    elif isinstance(obj, Qrels) and obj.subtopic is not None:
        qrels = obj
    else:
        raise ConfigError("diversity metrics (alpha_ndcg, alpha_dcg, nerr_ia, precision_ia) need subtopic qrels: a TREC "
                          "file 'topic subtopic docno judgment' (or bench.data.trec.read_qrels("
                          f"path, subtopics=True)); got {type(obj).__name__}")
    assert qrels.subtopic is not None
    if not (qrels.subtopic != 0).any():
        raise DataError("every line's second column is 0: this looks like an ordinary qrels file "
                        "('qid iter docno rel'), not subtopic qrels ('topic subtopic docno "
                        "judgment', subtopics numbered from 1 in the TREC Web track); every query "
                        "would have one subtopic", path=qrels.path)
    return qrels


def evaluate_diversity(qrels_in: QrelsInput, run_in: RunInput, specs: list[MetricSpec],
                       prof: Profile, per_query: bool) -> EvaluationResult:
    """``evaluate_trec`` of diversity metrics (see the module docstring): every spec of a
    family with ``Family.subtopics``, each under its own profile (:func:`groups`)."""
    other = [s.key for s in specs if not is_diversity(s)]
    if other:
        raise ConfigError(f"{', '.join(other)} cannot be evaluated beside diversity metrics "
                          "(alpha_ndcg, alpha_dcg, nerr_ia, precision_ia): those read subtopic qrels (one judgment per "
                          "query, subtopic and document), the others one judgment per document; "
                          "evaluate them apart, with an ordinary qrels file")
    qrels = subtopic_qrels(qrels_in)
    run = as_run(run_in)
    plan = groups(specs, prof)
    results = [_group(qrels, run, g_specs, g_prof, per_query) for g_prof, g_specs in plan]
    lacking = missing_query_ids(qrels.qid, run.qid)
    warn_missing(lacking, run.path,
                 [(g, [(s.key, g.missing_for(s.family)) for s in g_specs]) for g, g_specs in plan],
                 run_only=missing_query_ids(run.qid, qrels.qid) if lacking.shape[0] else None)
    return merge(results, specs, prof)


@dataclass(frozen=True)
class Ranked:
    """The selected queries' judgments and ranked run, as triples for the kernel (the TREC
    path's :func:`_rank`; the array path's :func:`bench.metrics.diversity_labels.rank_labels`).

    ``run_value`` / ``tri_value``: graded labels of the run's / the candidates' triples
    (``Profile.subtopic_gain="label"``), ``None``: binary (every triple 1); ``run_rel``: the run
    triples relevant for Precision-IA (``None``: all); ``tie_group``: where tied scores are
    averaged, each run triple's tied group as (first position, size)."""

    query_ids: NDArray[Any]
    n: NDArray[np.int64]            # retrieved documents per query
    ties: NDArray[np.bool_]         # tied scores among the top ties_k
    n_sub: NDArray[np.float64]      # subtopics with a relevant document per query
    run_q: NDArray[np.int64]        # (query, position, slot) of retrieved relevant documents
    run_pos: NDArray[np.int64]
    run_slot: NDArray[np.int64]
    cand_q: NDArray[np.int64]       # candidates of the ideal ranking
    cand_key: NDArray[np.int64]
    tri_cand: NDArray[np.int64]
    tri_slot: NDArray[np.int64]
    n_slots: int
    n_documents: int
    run_value: NDArray[np.float64] | None = None
    tri_value: NDArray[np.float64] | None = None
    run_rel: NDArray[np.bool_] | None = None
    tie_group: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    query_weights: NDArray[np.float64] | None = None


def cutoffs(specs: list[MetricSpec], prof: Profile) -> int | None:
    """The deepest cutoff the specs ask (``None``: a whole list): where tied scores matter."""
    ks = [metric_cutoff(s, prof.default_k) for s in specs]
    return None if None in ks else max(k for k in ks if k is not None)


def _group(qrels: Qrels, run: Run, specs: list[MetricSpec], prof: Profile,
           per_query: bool) -> EvaluationResult:
    policies = sorted({prof.missing_for(s.family) for s in specs}, key=lambda p: p != "zero")
    if len(policies) > 1:
        split = [_group(qrels, run, [s for s in specs if prof.missing_for(s.family) == pol],
                        replace(prof, missing=pol, missing_by_family=()), per_query)
                 for pol in policies]
        return replace(merge(split, specs, split[0].profile), profile=prof)
    if prof.padding != "none" or prof.nonpositive_scores != "rank":
        raise ConfigError(f"{', '.join(s.key for s in specs)}: profile {prof.name!r} drops padding "
                          "labels or non-positive scores, which no diversity evaluator does; use "
                          f"trec_eval:{specs[0].name} or the ir_measures name")
    if prof.subtopic_gain != "binary":
        raise ConfigError(f"{', '.join(s.key for s in specs)}: profile {prof.name!r} grades "
                          "subtopic labels (subtopic_gain='label'), which subtopic qrels do not "
                          "carry (ndeval reads them as binary); give labels with evaluate("
                          "subtopics=...) or use trec_eval:" + specs[0].name)
    if prof.ties not in TIES:
        raise ConfigError(f"{', '.join(s.key for s in specs)}: profile {prof.name!r} orders tied "
                          f"scores by {prof.ties!r}; a diversity metric needs one order of the "
                          f"documents ({', '.join(TIES)}): e.g. trec_eval:{specs[0].name}")
    ties_k = cutoffs(specs, prof)
    ranked = _rank(qrels, run, prof, policies[0] == "zero", ties_k)
    return summarise(ranked_parts(ranked, specs, prof, ties_k), specs, prof, per_query=per_query)


def ranked_parts(ranked: Ranked, specs: list[MetricSpec], prof: Profile, ties_k: int | None
                 ) -> QueryParts:
    """Each spec's per-query values from ``ranked`` (its components, the family's formula and
    blank rule: :func:`bench.metrics.aggregate.per_query_values`)."""
    values: dict[str, NDArray[np.float64]] = {}
    blank: dict[str, NDArray[np.bool_]] = {}
    cut = {s.name: metric_cutoff(s, prof.default_k) for s in specs}
    for alpha in dict.fromkeys(family_param(s) for s in specs):  # each alpha's sums once
        mine = [s for s in specs if family_param(s) == alpha]
        sums = _sums(ranked, alpha, {c: tuple(dict.fromkeys(
            cut[s.name] for s in mine if c in FAMILIES[s.family].components_for(prof)))
            for s in mine for c in FAMILIES[s.family].components_for(prof)})
        for spec in mine:
            k = cut[spec.name]
            comps = Components(n=ranked.n, r_list=ranked.n_sub, r_basis=ranked.n_sub,
                               has_gain=ranked.n_sub > 0, ties=ranked.ties,
                               values={(c, k): sums[(c, k)]
                                       for c in FAMILIES[spec.family].components_for(prof)})
            values[spec.name], blank[spec.name] = per_query_values(spec, comps, prof)
    return QueryParts(query_ids=ranked.query_ids, values=values, blank=blank,
                      query_weights=ranked.query_weights, has_gain=ranked.n_sub > 0, n=ranked.n,
                      ties=ranked.ties, pointwise_sums={}, n_documents=ranked.n_documents,
                      backend="numpy", ties_k=ties_k)


def _sums(ranked: Ranked, alpha: float | None, want: dict[str, tuple[int | None, ...]]
          ) -> dict[tuple[str, int | None], NDArray[np.float64]]:
    """The components ``want`` asks for (:data:`COMPONENTS`: the run's or the greedy ideal's
    sum, discounted as the family says; ``p_ia``: Precision-IA's count), at their cutoffs, per
    query."""
    n_q = int(ranked.query_ids.shape[0])
    out: dict[tuple[str, int | None], NDArray[np.float64]] = {}
    for comp, ks in want.items():
        if comp == "p_ia":
            rel = slice(None) if ranked.run_rel is None else ranked.run_rel
            group = None if ranked.tie_group is None else (ranked.tie_group[0][rel],
                                                           ranked.tie_group[1][rel])
            got = kernel.run_precision_ia(ranked.run_q[rel], ranked.run_pos[rel], n_q, ks, group)
            out.update({(comp, k): v for k, v in got.items()})
            continue
        assert alpha is not None
        kind, ideal = COMPONENTS[comp]
        if ideal:
            got = kernel.ideal_alpha_dcg(ranked.cand_q, ranked.cand_key, ranked.tri_cand,
                                         ranked.tri_slot, n_q, ranked.n_slots, alpha, ks, kind,
                                         ranked.tri_value)
        else:
            got = kernel.run_alpha_dcg(ranked.run_q, ranked.run_pos, ranked.run_slot, n_q, alpha,
                                       ks, kind, ranked.run_value)
        out.update({(comp, k): v for k, v in got.items()})
    return out


def _ranked_rows(qrels: Qrels, run: Run, names: NDArray[Any], docs: NDArray[Any], prof: Profile
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64],
                            NDArray[np.int64]]:
    """The run's rows of the queries ``names`` in ranked order: query, document (index into
    ``docs``), score (as the profile rounds it) and 0-based position. ``judged_only`` (trec_eval
    ``-J``, pyndeval ``judged_only``) drops the documents without a qrels line first;
    ``run_depth`` (trec_eval and ndeval ``-M``) keeps the top ``run_depth`` of each query."""
    keep = np.isin(run.qid, names)
    if prof.judged_only:
        keep &= np.isin(np.char.add(np.char.add(run.qid, " "), run.docno),  # ids hold no space
                        np.char.add(np.char.add(qrels.qid, " "), qrels.docno))
    r_q = np.searchsorted(names, run.qid[keep]).astype(np.int64)
    scores = run.score[keep]
    if prof.score_dtype == "float32":
        scores = scores.astype(np.float32).astype(np.float64)
    r_doc = np.searchsorted(docs, run.docno[keep]).astype(np.int64)
    rows = np.arange(r_q.shape[0])
    tiekey = {"docno_desc": -r_doc, "docno_asc": r_doc, "stable": rows, "row_desc": -rows}
    order = np.lexsort((tiekey[prof.ties], -scores, r_q))
    r_q, r_doc, scores = r_q[order], r_doc[order], scores[order]
    n = np.bincount(r_q, minlength=names.shape[0])
    pos = np.arange(r_q.shape[0]) - np.r_[0, np.cumsum(n)[:-1]][r_q]
    if prof.run_depth is not None:
        top = pos < prof.run_depth
        r_q, r_doc, scores, pos = r_q[top], r_doc[top], scores[top], pos[top]
    return r_q, r_doc, scores, pos.astype(np.int64)


def _rank(qrels: Qrels, run: Run, prof: Profile, zero: bool, ties_k: int | None) -> Ranked:
    """The queries (the run's with qrels lines; with ``zero`` every qrels query), the run's
    documents ranked under the profile, and the relevant judgments as kernel triples."""
    assert qrels.subtopic is not None
    q_ids = np.unique(qrels.qid)
    names = q_ids if zero else q_ids[np.isin(q_ids, run.qid)]
    if not names.shape[0]:
        raise DataError("no query of the run has relevance judgments in the qrels file "
                        f"{qrels.path} (query ids are compared as strings)", path=run.path)
    n_q = int(names.shape[0])
    docs = np.unique(np.concatenate([run.docno, qrels.docno]))
    r_q, r_doc, scores, pos = _ranked_rows(qrels, run, names, docs, prof)
    n = np.bincount(r_q, minlength=n_q).astype(np.int64)
    same = np.r_[False, (r_q[1:] == r_q[:-1]) & (scores[1:] == scores[:-1])]
    tied = same & ((pos < ties_k) if ties_k is not None else True)
    ties = np.bincount(r_q[tied], minlength=n_q) > 0
    # relevant judgments of the selected queries; slots = (query, subtopic) in ascending order
    rel = (qrels.rel > 0) & (qrels.rel >= prof.relevance_threshold) & np.isin(qrels.qid, names)
    j_q = np.searchsorted(names, qrels.qid[rel])
    j_doc = np.searchsorted(docs, qrels.docno[rel])
    _, j_sub = np.unique(qrels.subtopic[rel], return_inverse=True)  # dense, order kept
    j_sub = j_sub.ravel().astype(np.int64)
    width = int(j_sub.max(initial=0)) + 1
    slots, j_slot = np.unique(j_q * width + j_sub, return_inverse=True)
    n_sub = np.bincount(slots // width, minlength=n_q).astype(np.float64)
    n_docs = int(docs.shape[0])
    cands, j_cand = np.unique(j_q * n_docs + j_doc, return_inverse=True)
    j_cand = j_cand.ravel()
    j_slot = j_slot.ravel()
    by = np.lexsort((j_slot, j_cand))
    # retrieved relevant judgments: the run row of each judged (query, document)
    run_code = r_q * n_docs + r_doc
    by_code = np.argsort(run_code, kind="stable")
    code_sorted = run_code[by_code]
    want = cands[j_cand]
    at = np.minimum(np.searchsorted(code_sorted, want), max(code_sorted.shape[0] - 1, 0))
    hit = code_sorted[at] == want if code_sorted.shape[0] else np.zeros(want.shape[0], bool)
    rows_hit = by_code[at[hit]]
    return Ranked(query_ids=names, n=n, ties=ties, n_sub=n_sub,
                   run_q=j_q[hit], run_pos=pos[rows_hit], run_slot=j_slot[hit],
                   cand_q=cands // n_docs, cand_key=cands % n_docs, tri_cand=j_cand[by],
                   tri_slot=j_slot[by], n_slots=int(slots.shape[0]),
                   n_documents=int(r_q.shape[0]))
