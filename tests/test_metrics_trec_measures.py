"""R-precision, bpref, set_P, set_recall, set_F and the qrels conventions (``missing``,
``unjudged_gain``) of ``evaluate_trec``, against pytrec_eval (trec_eval 9.0.8), ir_measures 0.4.3
(which runs pytrec_eval, and gdeval.pl under Perl), the slow oracle ``trec_oracle`` and hand
arithmetic. The random qrels/runs hold tied scores, unjudged retrieved documents, negative
("in the pool, unjudged") judgments, judged documents that were not retrieved, qrels queries
without a run line, run queries without qrels and queries without a relevant judgment.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from metrics_oracles import trec_oracle

from bench.errors import ConfigError
from bench.metrics import get_profile
from bench.metrics.trec import evaluate_trec

TOL = 1e-9
# pytrec_eval measure (as it reports it) -> ltrbench metric
_PAIRS = {"Rprec": "rprec", "bpref": "bpref", "set_P": "set_p", "set_recall": "set_recall",
          "set_F": "set_f", "ndcg": "ndcg", "map": "map", "P_5": "p@5", "recip_rank": "mrr",
          "ndcg_cut_5": "ndcg@5", "recall_10": "recall@10"}
_MEASURES = {"Rprec", "bpref", "set_P", "set_recall", "set_F", "ndcg", "map", "P.5",
             "recip_rank", "ndcg_cut.5", "recall.10"}

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def _random_trec(seed: int, *, n_q: int = 40, levels: int = 4, max_rel: int = 2,
                 max_pool: int = 20) -> tuple[Qrels, Run]:
    rng = np.random.default_rng(seed)
    qrels: Qrels = {}
    run: Run = {}
    for q in range(n_q):
        qid = str(q + 1)  # numeric ids: gdeval.pl accepts nothing else
        pool = [f"D{rng.integers(0, 10**6)}x{i}" for i in range(int(rng.integers(1, max_pool)))]
        kind = rng.random()
        judged: dict[str, int] = {}
        for d in pool:
            if rng.random() < 0.75:
                judged[d] = int(rng.integers(0, max_rel + 1)) if rng.random() > 0.35 else 0
        if judged and rng.random() < 0.3:
            judged[next(iter(judged))] = -1  # in the pool but unjudged
        if kind < 0.12 and any(v >= 0 for v in judged.values()):
            qrels[qid] = judged  # a qrels query without a run line
            continue
        docs = [d for d in pool if rng.random() < 0.7]
        docs += [f"U{rng.integers(0, 10**6)}x{i}" for i in range(int(rng.integers(0, 4)))]
        run[qid] = {d: float(rng.integers(0, levels)) / 4.0 for d in (docs or pool[:1])}
        if kind < 0.93 and any(v >= 0 for v in judged.values()):
            qrels[qid] = judged  # else a run query without qrels
    return qrels, run


def _write(tmp: Path, qrels: Qrels, run: Run) -> tuple[Path, Path]:
    qp, rp = tmp / "qrels.txt", tmp / "run.txt"
    qp.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    rp.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for q, docs in run.items()
                          for i, (d, s) in enumerate(docs.items())))
    return qp, rp


def _shape_checks(qrels: Qrels, run: Run) -> None:
    """The data hold what the tests claim to cover."""
    assert any(q not in run for q in qrels)
    assert any(q not in qrels for q in run)
    assert any(r < 0 for docs in qrels.values() for r in docs.values())
    assert any(d not in qrels.get(q, {}) for q, docs in run.items() if q in qrels for d in docs)
    assert any(len(set(docs.values())) < len(docs) for docs in run.values())


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_new_trec_measures_equal_pytrec_eval_per_query(tmp_path: Path, backend: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for seed in range(3):
        qrels, run = _random_trec(seed)
        _shape_checks(qrels, run)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, _MEASURES).evaluate(run)
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=list(_PAIRS.values()),
                             profile="trec_eval", per_query=True, backend=backend)
        table = ours.per_query
        assert table is not None
        t = table.set_index("qid")
        assert sorted(t.index) == sorted(theirs)
        for trec_name, name in _PAIRS.items():
            per_q = np.array([theirs[q][trec_name] for q in t.index])
            np.testing.assert_allclose(t[name].to_numpy(), per_q, rtol=0, atol=TOL, err_msg=name)
            assert ours.metrics[name] == pytest.approx(per_q.mean(), abs=TOL)


def test_trec_eval_c_scores_missing_queries_zero_like_ir_measures(tmp_path: Path) -> None:
    """ir_measures averages over every qrels query and fills 0 where pytrec_eval has no value
    (providers/base.py:18-27): trec_eval -c."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, RR, Bpref, P, Rprec, SetF, SetP, SetR, nDCG

    pairs = {AP: "map", P @ 5: "p@5", RR: "mrr", Rprec: "rprec", Bpref: "bpref", SetP: "set_p",
             SetR: "set_recall", SetF: "set_f", nDCG @ 10: "ndcg@10", nDCG: "ndcg"}
    for seed in range(3):
        qrels, run = _random_trec(seed)
        theirs = ir_measures.calc_aggregate(list(pairs), qrels, run)
        paths = _write(tmp_path, qrels, run)
        ours = evaluate_trec(*paths, metrics=list(pairs.values()), profile="trec_eval-c")
        plain = evaluate_trec(*paths, metrics=["map"], profile="trec_eval")
        for measure, name in pairs.items():
            assert ours.metrics[name] == pytest.approx(theirs[measure], abs=TOL), name
        # the missing queries (zeros) lower the mean: the two profiles really differ
        assert ours.metrics["map"] < plain.metrics["map"] - 1e-3
        assert ours.diagnostics.n_queries == sum(1 for q in qrels if min(qrels[q].values()) >= 0
                                                 or max(qrels[q].values()) >= 0)


def test_unjudged_gain_zero_reproduces_ir_measures_gain_table(tmp_path: Path) -> None:
    """ir_measures nDCG(gains={0:1, 1:4}) maps the qrels levels to the gains and runs
    pytrec_eval's ndcg, where unjudged documents gain 0 (m_ndcg.c get_gain). Giving them the gain
    of label 0 instead (g(0) = 1) is a different number."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import nDCG

    measures = [nDCG(gains={0: 1, 1: 4}), nDCG(gains={0: 1, 1: 4}) @ 5]
    zero = replace(get_profile("trec_eval-c"), name="gains", gain=(1.0, 4.0))
    for seed in range(3):
        qrels, run = _random_trec(seed, max_rel=1)
        theirs = ir_measures.calc_aggregate(measures, qrels, run)
        paths = _write(tmp_path, qrels, run)
        ours = evaluate_trec(*paths, metrics="ndcg ndcg@5", profile=zero)
        label0 = evaluate_trec(*paths, metrics="ndcg", profile=replace(zero, unjudged_gain="label0"))
        assert ours.metrics["ndcg"] == pytest.approx(theirs[measures[0]], abs=TOL)
        assert ours.metrics["ndcg@5"] == pytest.approx(theirs[measures[1]], abs=TOL)
        assert abs(label0.metrics["ndcg"] - theirs[measures[0]]) > 0.05


def test_gdeval_profile_equals_ir_measures_gdeval_to_its_printed_digits(tmp_path: Path) -> None:
    """gdeval.pl prints 5 decimals, so agreement is to 5e-6. ir_measures adds 0 for the qrels
    topics gdeval skipped (no positive judgment, or no run line): gdeval with missing='zero',
    empty=0."""
    ir_measures = pytest.importorskip("ir_measures")
    if shutil.which("perl") is None:
        pytest.skip("gdeval.pl needs perl")
    from ir_measures import ERR, nDCG

    pairs = {nDCG(dcg="exp-log2") @ 5: "ndcg@5", nDCG(dcg="exp-log2") @ 20: "ndcg@20",
             ERR @ 5: "err@5", ERR @ 20: "err@20"}
    prof = replace(get_profile("gdeval"), missing="zero", empty=0.0)
    for seed in range(2):
        qrels, run = _random_trec(seed, max_rel=4)
        theirs: dict[tuple[str, str], float] = {}
        for m in ir_measures.iter_calc(list(pairs), qrels, run):
            theirs[(str(m.measure), m.query_id)] = m.value
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=list(pairs.values()),
                             profile=prof, per_query=True)
        assert ours.per_query is not None
        t = ours.per_query.set_index("qid")
        for measure, name in pairs.items():
            qs = [q for (m, q) in theirs if m == str(measure)]
            assert sorted(qs) == sorted(t.index)
            diff = max(abs(theirs[(str(measure), q)] - t.loc[q, name]) for q in qs)
            assert diff <= 5e-6 + 1e-12, name


_ORACLE_METRICS = "rprec bpref set_p set_recall set_f ndcg ndcg@5 map map@5 p@5 mrr recall@10 err@5 dcg@3"


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("variant", ["average-gain-table", "ltrbench-missing", "gdeval-stable",
                                     "sklearn-row-desc"])
def test_trec_measures_equal_slow_oracle(tmp_path: Path, backend: str, variant: str) -> None:
    """Every metric and convention against ``trec_oracle`` (average ties: the mean over every
    order of each tied group, brute force), short lists so that the oracle can enumerate."""
    prof = {
        "average-gain-table": replace(get_profile("trec_eval-c"), name="a", ties="average",
                                      gain=(1.0, 4.0, 5.0)),
        "ltrbench-missing": replace(get_profile("ltrbench"), name="b", missing="zero",
                                    unjudged_gain="zero", gain=(1.0, 2.0, 3.0)),
        "gdeval-stable": replace(get_profile("gdeval"), name="c", ties="stable", missing="zero",
                                 max_label=2),
        "sklearn-row-desc": replace(get_profile("sklearn-ignore-ties"), name="d", missing="zero",
                                    discount_base=10.0),
    }[variant]
    if backend == "numba":  # the compiled kernel's AP: ties as `ties` orders them (scikit-learn's
        prof = replace(prof, ap_ties="ties")  # thresholds are the NumPy kernel's alone)
    for seed in range(2):
        qrels, run = _random_trec(seed, n_q=25, max_pool=9)
        means, per_q = trec_oracle(qrels, run, _ORACLE_METRICS, prof)
        ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=_ORACLE_METRICS, profile=prof,
                             per_query=True, backend=backend)
        assert ours.per_query is not None
        t = ours.per_query.set_index("qid")
        for name, vals in per_q.items():
            assert sorted(vals) == sorted(t.index)
            np.testing.assert_allclose(t.loc[list(vals), name].to_numpy(),
                                       np.array(list(vals.values())), rtol=0, atol=TOL,
                                       err_msg=name)
            if not math.isnan(means[name]):
                assert ours.metrics[name] == pytest.approx(means[name], abs=TOL), name


def test_bpref_rprec_and_set_measures_by_hand(tmp_path: Path) -> None:
    """One query, ranked a(rel) n1(nonrel) u(unjudged) b(rel) n2(nonrel); c(rel) and n3(nonrel)
    judged but not retrieved: R = 3, N = 3.
    bpref = (1 + (1 - min(1, 3) / min(3, 3)) + 0) / 3 = (1 + 2/3) / 3 = 5/9
    (a: nothing judged above; b: n1 above -- u is skipped; c not retrieved adds 0).
    Rprec = relevant in the top R = 3 (a, n1, u) / 3 = 1/3. set_P = 2 / 5, set_recall = 2 / 3,
    set_F = 2 * 2 / (5 + 3) = 1/2."""
    qrels = {"1": {"a": 1, "b": 2, "c": 1, "n1": 0, "n2": 0, "n3": 0}}
    run = {"1": {"a": 5.0, "n1": 4.0, "u": 3.0, "b": 2.0, "n2": 1.0}}
    r = evaluate_trec(*_write(tmp_path, qrels, run), metrics="bpref rprec set_p set_recall set_f",
                      profile="trec_eval")
    assert r.metrics["bpref"] == pytest.approx(5 / 9, abs=1e-15)
    assert r.metrics["rprec"] == pytest.approx(1 / 3, abs=1e-15)
    assert r.metrics["set_p"] == pytest.approx(2 / 5, abs=1e-15)
    assert r.metrics["set_recall"] == pytest.approx(2 / 3, abs=1e-15)
    assert r.metrics["set_f"] == pytest.approx(1 / 2, abs=1e-15)


def test_missing_query_scores_zero_by_hand(tmp_path: Path) -> None:
    """Query 2 has a relevant judgment and no run line: under trec_eval-c every metric averages
    query 1 with a 0; under trec_eval it is left out. Query 1: one relevant document at rank 1
    of 2, so P@2 = 1/2 and RR = 1."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"x": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    paths = _write(tmp_path, qrels, run)
    c = evaluate_trec(*paths, metrics="p@2 mrr ndcg bpref set_f", profile="trec_eval-c")
    plain = evaluate_trec(*paths, metrics="p@2 mrr", profile="trec_eval")
    assert c.metrics["p@2"] == pytest.approx(0.25, abs=1e-15)
    assert c.metrics["mrr"] == pytest.approx(0.5, abs=1e-15)
    assert c.metrics["ndcg"] == pytest.approx(0.5, abs=1e-15)
    assert c.metrics["bpref"] == pytest.approx(0.5, abs=1e-15)
    assert plain.metrics["mrr"] == 1.0
    assert c.diagnostics.n_queries == 2


def test_bad_missing_and_unjudged_values_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="missing"):
        replace(get_profile("trec_eval"), missing="skip")
    with pytest.raises(ConfigError, match="unjudged_gain"):
        replace(get_profile("trec_eval"), unjudged_gain="one")


def _ohsumed(path: Path, seed: int) -> tuple[Qrels, Run]:
    """LETOR OHSUMED rows as qrels (every row judged, labels 0/1/2) and a run of random scores
    in 5 levels (many ties) over a random 80% of each query's documents."""
    rng = np.random.default_rng(seed)
    qrels: Qrels = {}
    run: Run = {}
    for line in path.read_text().splitlines():
        head, _, comment = line.partition("#")
        fields = head.split()
        q = fields[1].split(":")[1]
        d = comment.split("=")[1].strip()
        qrels.setdefault(q, {})[d] = int(fields[0])
        if rng.random() < 0.8:
            run.setdefault(q, {})[d] = float(rng.integers(0, 5))
    return qrels, run


def test_new_measures_on_ohsumed_equal_pytrec_eval(tmp_path: Path, shared_data: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    path = shared_data / "letor3-OHSUMED-QueryLevelNorm" / "Fold1" / "test.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    qrels, run = _ohsumed(path, 3)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, _MEASURES).evaluate(run)
    ours = evaluate_trec(*_write(tmp_path, qrels, run), metrics=list(_PAIRS.values()),
                         profile="trec_eval", per_query=True)
    assert ours.per_query is not None
    t = ours.per_query.set_index("qid")
    assert len(t) == len(theirs) > 10
    for trec_name, name in _PAIRS.items():
        per_q = np.array([theirs[q][trec_name] for q in t.index])
        np.testing.assert_allclose(t[name].to_numpy(), per_q, rtol=0, atol=TOL, err_msg=name)
