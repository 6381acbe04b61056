"""``evaluate_trec``: metrics of a TREC run against TREC qrels, as trec_eval selects queries.

Queries: those of the run that have qrels (trec_eval 9.0.8 without ``-c``: run topics without
qrels are skipped, qrels topics without a run are ignored), in qid order (string order).
Labels: the qrels relevance of each retrieved document; unjudged documents and negative
judgments count as 0. Under a profile whose IDCG basis is ``"qrels"`` (trec_eval, ranx), judged
documents that were not retrieved enter the ideal DCG and ``R`` (AP and recall denominators).
Ties follow the profile; ``docno_desc`` uses the run's document ids.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from bench.data.trec_objects import QrelsInput, RunInput, as_qrels, as_run
from bench.errors import DataError
from bench.metrics.evaluate import Judged, evaluate_prepared
from bench.metrics.names import parse_metrics
from bench.metrics.profiles import Profile, get_profile
from bench.metrics.result import EvaluationResult
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
    if not keep.any():
        raise DataError(
            "no query of the run has relevance judgments in the qrels file "
            f"{qrels.path} (query ids are compared as strings)",
            path=run.path,
        )
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
    labels = np.fromiter(
        (max(rel_of.get((q, d), 0), 0) for q, d in zip(run_names, docs, strict=True)),
        dtype=np.float64,
        count=len(docs),
    )
    prep = prepare(labels, r_score, qid=qindex, group=None, weights=None, docno=r_doc)
    prep.query_ids = names
    judged = None
    if prof.idcg_basis == "qrels":
        retrieved = set(zip(run_names, docs, strict=True))
        pos = {q: i for i, q in enumerate(names.tolist())}
        extra_l: list[int] = []
        extra_q: list[int] = []
        for q, d, r in zip(qrels.qid.tolist(), qrels.docno.tolist(), qrels.rel.tolist(), strict=True):
            if q in pos and r >= 0 and (q, d) not in retrieved:
                extra_l.append(r)
                extra_q.append(pos[q])
        judged = Judged(np.asarray(extra_l, dtype=np.float64), np.asarray(extra_q, dtype=np.int64))
        if judged.labels.shape[0]:
            top = float(judged.labels.max())
            if prof.max_label is not None and top > prof.max_label:
                raise DataError(
                    f"relevance {top:g} is above {prof.max_label}, the largest label profile "
                    f"{prof.name!r} accepts",
                    path=qrels.path,
                )
    return evaluate_prepared(prep, specs, prof, per_query=per_query, judged=judged,
                             backend=backend)
