"""Compile ltrbench's numba kernels once, into numba's on-disk cache, before the test workers
start: each pytest-xdist worker would otherwise compile every kernel again on a cold clone.
Run by .ci/run beside the type check; a failure here only costs the time it saves."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from bench.metrics import evaluate, evaluate_trec

rng = np.random.default_rng(0)
n_q, per = 1500, 20  # above the small-input path's 20,000 rows: the compiled kernels run
y = rng.integers(0, 4, n_q * per).astype(float)
s = rng.integers(0, 50, n_q * per).astype(float)
group = [per] * n_q
metrics = ("ndcg@1,3,5,10 ndcg map@10 map mrr p@10 recall@10 err@10 hits@10 dcg@10 rprec bpref "
           "fallout@10 ncrr@10 rbp(0.8)@10 rbp_residual(0.8)@10 rprec_mult(0.5) "
           "iprec_at_recall(0.5) auc gauc f1@10")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for profile in ("ltrbench", "lightgbm", "xgboost", "trec_eval", "catboost", "sklearn"):
        for weights in (None, rng.random(n_q)):
            for name in metrics.split():  # one at a time: a profile may refuse one of them
                with contextlib.suppress(Exception):  # refused under this profile: nothing to warm
                    evaluate(y, s, group=group, metrics=name, profile=profile, weights=weights,
                             per_query=True)
    qrels = {str(q): {str(d): int(y[q * per + d]) for d in range(per) if d % 3}
             for q in range(n_q)}
    run = {str(q): {str(d): float(s[q * per + d]) for d in range(per)} for q in range(n_q)}
    evaluate_trec(qrels, run, metrics="ndcg_cut_10 map P_10 recall_10 bpref Rprec infAP",
                  per_query=True)
# ranx (the tests' oracle, and a `crosscheck --evaluators` row) compiles its builders per width
# of its document-id arrays; bench.crosscheck.ranx_objects and the test session widen every id
# array to 64 characters (longer ids: 128, 256 ...), so one compile here covers nearly all of it.
with contextlib.suppress(ImportError), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import ranx

    from bench.crosscheck import ranx_objects

    ranx_qrels = ranx_objects.qrels({q: dict(d) for q, d in list(qrels.items())[:50]})
    ranx_run = ranx_objects.run({q: dict(d) for q, d in list(run.items())[:50]})
    ranx.evaluate(ranx_qrels, ranx_run, ["ndcg@10", "ndcg", "map@10", "map", "mrr", "precision@10",
                                         "recall@10", "hits@10", "r-precision", "bpref",
                                         "dcg@10", "rbp.8"], make_comparable=True)
print("numba kernels compiled into the cache")
