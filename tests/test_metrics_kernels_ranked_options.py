"""The ranked families under trec_eval's options, both backends: ``run_depth`` (``-M``),
``judged_only`` (``-J``) and ``rel_level`` (ranx's ``-lN``), against the slow TREC oracle (AUC,
which that oracle does not compute, and infAP: compiled twin against NumPy pass).

``-M N`` is the oracle on the run cut to its top N in trec_eval's order, ``-J`` the oracle on the
run without its unjudged documents; the relevance level moves no relevance, only gains, so the
ranked families keep the oracle's values. Golden numbers: ``metrics_oracles.trec_oracle``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from metrics_oracles import trec_oracle
from test_metrics_trec_measures import _random_trec, _write

from bench.metrics import get_profile, parse_metrics
from bench.metrics.trec import evaluate_trec

METRICS = ("fallout@3 fallout rbp_residual(0.5)@4 rbp_residual rbp(0.7)@5 rbp ncrr@3 ncrr "
           "rprec@3 rprec rprec_mult(0.5) rprec_mult(1.5) iprec_at_recall(0.0) "
           "iprec_at_recall(0.3) iprec_at_recall(1.0)")
TOL = 1e-9
Run = dict[str, dict[str, float]]


def _trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's ranking: score as float32 descending, document id descending."""
    return sorted(docs, key=lambda d: (float(np.float32(docs[d])), d), reverse=True)


def _cut(run: Run, k: int) -> Run:
    return {q: {d: docs[d] for d in _trec_order(docs)[:k]} for q, docs in run.items()}


def _judged(run: Run, qrels: dict[str, dict[str, int]]) -> Run:
    return {q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0}
            for q, docs in run.items()}


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("option", ["run_depth", "judged_only", "rel_level"])
def test_the_ranked_families_under_trec_eval_options_equal_the_oracle(
        tmp_path: Path, backend: str, option: str) -> None:
    base = get_profile("trec_eval")
    change = {"run_depth": {"run_depth": 3}, "judged_only": {"judged_only": True},
              "rel_level": {"rel_level": "zero", "relevance_threshold": 2.0}}[option]
    prof = dataclasses.replace(base, name=f"trec_eval_{option}", **change)  # type: ignore[arg-type]
    for seed in range(3):
        qrels, run = _random_trec(seed, n_q=25)
        as_seen = {"run_depth": _cut(run, 3), "judged_only": _judged(run, qrels),
                   "rel_level": run}[option]
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=METRICS, profile=prof,
                             per_query=True, backend=backend)
        _means, per_q = trec_oracle(qrels, as_seen, METRICS, dataclasses.replace(base, **change))
        t = ours.per_query
        assert t is not None
        assert ours.diagnostics.backend == backend
        t = t.set_index("qid")
        assert set(t.index) == {q for q in per_q[parse_metrics(METRICS)[0].name]}
        for spec in parse_metrics(METRICS):
            want = np.array([per_q[spec.name][q] for q in t.index])
            np.testing.assert_allclose(t[spec.name].to_numpy(), want, rtol=0, atol=TOL,
                                       err_msg=f"{option} {seed} {spec.name}")


@pytest.mark.parametrize("option", [{}, {"run_depth": 4}, {"judged_only": True}])
def test_infap_and_every_ranked_family_agree_between_the_backends(tmp_path: Path,
                                                                   option: dict[str, object]) -> None:
    """infAP reads the pool (negative judgments), which the oracle does not model: the compiled
    twin against the NumPy pass (each against the oracle: ``test_metrics_kernels_ranked.py``)."""
    prof = dataclasses.replace(get_profile("trec_eval"), name="trec_eval_x", **option)  # type: ignore[arg-type]
    metrics = METRICS + " infap auc gauc"
    for seed in range(3):
        files = _write(tmp_path, *_random_trec(seed, n_q=30))
        res = {b: evaluate_trec(*files, metrics=metrics, profile=prof, per_query=True,
                                backend=b) for b in ("numba", "numpy")}
        a, b = res["numba"].per_query, res["numpy"].per_query
        assert a is not None
        assert b is not None
        for spec in parse_metrics(metrics):
            np.testing.assert_allclose(a[spec.name].to_numpy(), b[spec.name].to_numpy(), rtol=0,
                                       atol=1e-12, err_msg=f"{option} {seed} {spec.name}")
