"""Cross-check: built-in vs reference agreement and the reasons decomposition of the gap.

Most tests drive the machinery with a slow, obviously-correct per-query NDCG written here (a
loop per query, on a stand-in Profile with the contract's field names), and with LightGBM's and
XGBoost's own metric computed on injected scores (init_score / base_margin, zero trees) as the
independent built-in. Tests of the real ``bench.metrics`` evaluator skip until it exists.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import crosscheck as cc
from bench.crosscheck.render import render_markdown
from bench.runners.metric_provider import MetricProvider

LOG3 = math.log2(3)

# ------------------------------------------------------------------------------------------
# A stand-in Profile (the bench.metrics.Profile fields the reconciliation steps read) and a slow
# reference NDCG
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prof:
    name: str
    gain: Any = "exp2"
    discount: str = "log2"
    ties: str = "average"
    empty: float | None = None
    empty_by_family: tuple[tuple[str, float], ...] = ()
    idcg_basis: str = "list"
    k_beyond_n: str = "clip"
    score_dtype: str = "float64"
    default_k: int | None = None
    discount_base: float = 2.0
    arithmetic_dtype: str = "float64"


LGB = Prof("lightgbm", ties="stable", empty=1.0)
XGB = Prof("xgboost", ties="stable", empty=1.0, score_dtype="float32")
LTR = Prof("ltrbench")
OTHER = Prof("other", gain="linear", k_beyond_n="zero")  # differs in gain and truncation too
FAKE_PROFILES = {p.name: p for p in (LGB, XGB, LTR, OTHER)}


def _gain(labels: list[float], gain: Any) -> list[float]:
    if gain == "exp2":
        return [2.0**x - 1.0 for x in labels]
    if gain == "linear":
        return list(labels)
    return [float(gain[int(x)]) for x in labels]


def _disc(i: int, discount: str) -> float:
    if discount == "letor4":
        return 1.0 if i < 2 else 1.0 / math.log2(i + 1)
    return 1.0 / math.log2(i + 2)


def slow_ndcg(labels: list[float], scores: list[float], k: int, p: Prof) -> float:
    s = [float(np.float32(x)) if p.score_dtype == "float32" else float(x) for x in scores]
    n = len(labels)
    g = _gain(list(labels), p.gain)
    kk = min(k, n)
    ideal = sorted(g, reverse=True)
    idcg = sum(ideal[i] * _disc(i, p.discount) for i in range(kk))
    if idcg == 0:
        return math.nan if p.empty is None else float(p.empty)
    if p.k_beyond_n == "zero" and k > n:
        return 0.0
    order = sorted(range(n), key=lambda i: -s[i])  # Python's sort is stable
    dcg = 0.0
    if p.ties == "stable":
        dcg = sum(g[order[i]] * _disc(i, p.discount) for i in range(kk))
    else:  # McSherry-Najork: a tied group's mean gain times the sum of its discounts
        i = 0
        while i < n:
            j = i
            while j + 1 < n and s[order[j + 1]] == s[order[i]]:
                j += 1
            mean_gain = sum(g[order[t]] for t in range(i, j + 1)) / (j + 1 - i)
            dcg += mean_gain * sum(_disc(t, p.discount) for t in range(i, min(j + 1, kk)))
            i = j + 1
    return dcg / idcg


def slow_evaluate(labels, scores, *, group, metrics, profile, per_query=True, qid=None):
    (metric,) = metrics
    k = int(metric.split("@")[1])
    prof = FAKE_PROFILES[profile] if isinstance(profile, str) else profile
    vals, start = [], 0
    for size in np.asarray(group):
        end = start + int(size)
        vals.append(slow_ndcg(list(labels[start:end]), list(scores[start:end]), k, prof))
        start = end
    v = np.array(vals)
    frame = pd.DataFrame({"qid": np.arange(len(v)), metric: v})
    mean = float(np.nanmean(v)) if np.any(~np.isnan(v)) else math.nan
    return SimpleNamespace(metrics={metric: mean}, per_query=frame, profile=prof)


# ------------------------------------------------------------------------------------------
# Library built-ins on injected scores (zero trees)
# ------------------------------------------------------------------------------------------


def lightgbm_ndcg(labels: np.ndarray, scores: np.ndarray, offsets: np.ndarray, k: int) -> float:
    import lightgbm as lgb

    ds = lgb.Dataset(
        np.zeros((len(labels), 1)), label=labels, group=np.diff(offsets), init_score=scores,
        params={"verbose": -1},
    )
    booster = lgb.Booster(
        params={"objective": "lambdarank", "metric": "ndcg", "eval_at": [k], "verbose": -1},
        train_set=ds,
    )
    return float(booster.eval_train()[0][2])


def xgboost_ndcg(labels: np.ndarray, scores: np.ndarray, offsets: np.ndarray, k: int) -> float:
    import xgboost as xgb

    d = xgb.DMatrix(np.zeros((len(labels), 1)), label=labels, base_margin=scores)
    d.set_group(np.diff(offsets))
    booster = xgb.train(
        {"objective": "rank:ndcg", "eval_metric": f"ndcg@{k}", "nthread": 1}, d, num_boost_round=0
    )
    return float(booster.eval(d).split(":")[-1])


def injected_builtin(library: str, labels, scores, offsets, metric: str) -> float:
    k = int(metric.split("@")[1])
    fn = lightgbm_ndcg if library == "lightgbm" else xgboost_ndcg
    return fn(np.asarray(labels, float), np.asarray(scores, float), np.asarray(offsets), k)


def injected_provider(library: str) -> type[MetricProvider]:
    """A built-in metric provider of ``library`` whose value is :func:`injected_builtin`'s (the
    library's own metric through the helpers above, not through bench.crosscheck.providers)."""

    class Injected(MetricProvider):
        title = library

        def prepare(self, labels, scores, offsets, *, label_gain, n_threads, weights) -> None:
            self.data = (labels, scores, offsets)

        def __call__(self) -> dict[str, float]:
            return {m: injected_builtin(library, *self.data, m) for m in self.metrics}

    return Injected


# ------------------------------------------------------------------------------------------
# Constructed data: one query per reason
# ------------------------------------------------------------------------------------------


def constructed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Six queries for ndcg@3 (padding docs: label 0, score -10, change nothing):

    q0 blank (all labels 0); q1 tie (labels 0,1 with equal scores); q2 graded labels 1,2 ranked
    1 before 2; q3 only 2 docs (k > n); q4 a 1e-9 score difference (a tie in float32);
    q5 twelve docs, binary labels, no ties (no reason applies).
    """
    queries = [
        ([0, 0, 0], [0.3, 0.2, 0.1]),
        ([0, 1, 0], [0.5, 0.5, -10.0]),
        ([1, 2, 0], [2.0, 1.0, -10.0]),
        ([1, 0], [0.1, 0.9]),
        ([1, 0, 0], [1.0, 1.0 + 1e-9, -10.0]),
        ([1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0], list(np.linspace(1.0, 0.0, 12))),
    ]
    labels = np.concatenate([np.array(q[0], float) for q in queries])
    scores = np.concatenate([np.array(q[1], float) for q in queries])
    offsets = np.concatenate([[0], np.cumsum([len(q[0]) for q in queries])])
    return labels, scores, offsets


def test_step_contributions_by_hand() -> None:
    # Excluding a blank query scored 1: mean 2.2/3 → 1.2/2; the blank carries (0.6 - 1)/3.
    c, change = cc.step_contributions([1.0, 0.5, 0.7], [np.nan, 0.5, 0.7])
    assert change == pytest.approx(0.6 - 2.2 / 3)
    np.testing.assert_allclose(c, [(0.6 - 1.0) / 3, 0.0, 0.0])
    # Including it scored 0: mean 0.6 → 1.2/3; it carries (0 - 0.6)/3.
    c, change = cc.step_contributions([np.nan, 0.5, 0.7], [0.0, 0.5, 0.7])
    assert change == pytest.approx(-0.2)
    np.testing.assert_allclose(c, [-0.2, 0.0, 0.0])
    # Same query set: (after - before) / n.
    c, change = cc.step_contributions([0.2, 0.4], [0.3, 0.1])
    np.testing.assert_allclose(c, [0.05, -0.15])
    assert change == pytest.approx(-0.1)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=1, max_size=8),
    st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=8, max_size=8),
)
def test_step_contributions_always_add_up_to_the_change_of_the_mean(a: list, b: list) -> None:
    before = np.array([np.nan if x is None else x for x in a])
    after = np.array([np.nan if x is None else x for x in b[: len(a)]])
    c, change = cc.step_contributions(before, after)
    if math.isnan(change):
        assert np.all(np.isnan(c))
        return
    assert math.fsum(c) == pytest.approx(change, abs=1e-12)


def test_each_reason_appears_on_the_query_constructed_for_it() -> None:
    labels, scores, offsets = constructed()
    rec = cc.reconcile(
        labels, scores, offsets, library_profile=XGB, default_profile=OTHER, metric="ndcg@3",
        evaluate=slow_evaluate,
    )
    got = {(int(q), r) for q, r in zip(rec.per_query["query"], rec.per_query["reason"], strict=True)}
    assert got == {(0, "blank_query"), (1, "ties"), (2, "gain"), (3, "truncation"),
                   (4, "ties"), (4, "float32")}
    # Hand values (exp2 gain, 1/log2(i+2)). Library (XGBoost-like): blank 1, ties in input order,
    # float32 scores. Default: blank excluded, tie-averaged, linear gain, k > n scores 0.
    q5 = slow_ndcg(list(labels[14:]), list(scores[14:]), 3, LTR)
    lib = [1.0, 1 / LOG3, (1 + 3 / LOG3) / (3 + 1 / LOG3), 1 / LOG3, 1.0, q5]
    avg_tie = 0.5 * (1 + 1 / LOG3)
    dflt = [avg_tie, (1 + 2 / LOG3) / (2 + 1 / LOG3), 0.0, 1 / LOG3, q5]
    assert rec.library_value == pytest.approx(sum(lib) / 6)
    assert rec.default_value == pytest.approx(sum(dflt) / 5)
    assert rec.gap == pytest.approx(sum(lib) / 6 - sum(dflt) / 5)
    assert rec.reasons["blank_query"] == pytest.approx(sum(lib) / 6 - sum(lib[1:]) / 5)
    assert rec.reasons["ties"] == pytest.approx(-((avg_tie - lib[1]) + (avg_tie - 1.0)) / 5)
    assert rec.reasons["gain"] == pytest.approx(-(dflt[1] - lib[2]) / 5)
    assert rec.reasons["truncation"] == pytest.approx(-(0.0 - 1 / LOG3) / 5)
    assert rec.reasons["float32"] == pytest.approx(-(1 / LOG3 - avg_tie) / 5)
    assert math.fsum(rec.reasons.values()) == pytest.approx(rec.gap, abs=1e-15)
    assert rec.residual == 0.0
    assert rec.explained
    assert math.fsum(rec.per_query["contribution"]) == pytest.approx(rec.gap, abs=1e-15)
    assert rec.affected == {"weights": 0, "blank_query": 1, "ties": 2, "gain": 1, "truncation": 1,
                            "float32": 1}
    assert rec.n_blank == 1


def test_lightgbm_like_profile_has_no_float32_reason() -> None:
    labels, scores, offsets = constructed()
    rec = cc.reconcile(labels, scores, offsets, library_profile=LGB, default_profile=LTR,
                       metric="ndcg@3", evaluate=slow_evaluate)
    # In float64 the 1e-9 difference is a strict order: q4 is no tie for LightGBM.
    assert rec.reasons["float32"] == 0.0
    assert rec.reasons["gain"] == 0.0
    assert rec.reasons["truncation"] == 0.0
    assert set(rec.per_query["reason"]) == {"blank_query", "ties"}
    assert math.fsum(rec.reasons.values()) == pytest.approx(rec.gap, abs=1e-15)


_FIELDS = {
    "gain": ["exp2", "linear", (0.0, 1.0, 5.0, 6.0)],
    "ties": ["stable", "average"],
    "empty": [1.0, 0.0, None],
    "k_beyond_n": ["clip", "zero"],
    "score_dtype": ["float64", "float32"],
}

_profiles = st.builds(
    lambda **kw: Prof("p", **kw),
    **{name: st.sampled_from(opts) for name, opts in _FIELDS.items()},
)


@settings(max_examples=40, deadline=None)
@given(
    lib=_profiles,
    dflt=_profiles,
    sizes=st.lists(st.integers(1, 7), min_size=1, max_size=6),
    seed=st.integers(0, 10_000),
    k=st.sampled_from([1, 3, 5]),
)
def test_reasons_telescope_exactly_to_the_gap(lib: Prof, dflt: Prof, sizes: list[int],
                                              seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    labels = rng.integers(0, 4, n).astype(float) * (rng.random(n) < 0.6)
    scores = np.round(rng.random(n), 1)  # many exact ties
    scores[rng.random(n) < 0.2] += 1e-9  # and float32-only ties
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    rec = cc.reconcile(labels, scores, offsets, library_profile=lib, default_profile=dflt,
                       metric=f"ndcg@{k}", evaluate=slow_evaluate)
    if not rec.defined:
        return
    assert rec.residual == pytest.approx(0.0, abs=1e-12)
    assert rec.explained
    assert math.fsum(rec.reasons.values()) == pytest.approx(rec.gap, abs=1e-12)
    assert math.fsum(rec.per_query["contribution"]) == pytest.approx(rec.gap, abs=1e-12)
    for reason, _ in cc.STEPS:
        field = dict(cc.STEPS)[reason][0]
        if getattr(lib, field, None) == getattr(dflt, field, None):
            assert rec.reasons[reason] == 0.0


def test_a_convention_outside_the_walk_leaves_an_unexplained_residual() -> None:
    labels, scores, offsets = constructed()
    other_discount = dataclasses.replace(LTR, name="letor-discount", discount="letor4")
    rec = cc.reconcile(labels, scores, offsets, library_profile=LGB,
                       default_profile=other_discount, metric="ndcg@3", evaluate=slow_evaluate)
    assert not rec.explained
    assert abs(rec.residual) > 1e-9
    assert rec.unexplained_fields == ("discount",)
    assert "residual" in set(rec.per_query["reason"])
    assert math.fsum(rec.reasons.values()) + rec.residual == pytest.approx(rec.gap, abs=1e-15)


# ------------------------------------------------------------------------------------------
# Agreement with the libraries' own metric
# ------------------------------------------------------------------------------------------


def test_classify_agreement_thresholds() -> None:
    assert cc.classify_agreement(0.5, 0.5)[1] == "exact"
    assert cc.classify_agreement(0.5, 0.5 + 5e-10)[1] == "exact"
    assert cc.classify_agreement(0.5, 0.5 + 5e-8, float32_reference=0.5)[1] == "float32"
    assert cc.classify_agreement(0.5, 0.5 + 5e-8, float32_reference=0.5 + 5e-8)[1] == "rounding"
    assert cc.classify_agreement(0.5, 0.5 + 2e-6)[1] == "mismatch"
    assert cc.classify_agreement(0.5, math.nan)[1] == "mismatch"


@pytest.mark.parametrize(("library", "profile"), [("lightgbm", LGB), ("xgboost", XGB)])
def test_library_builtin_matches_the_slow_reference_under_its_profile(library: str, profile: Prof) -> None:
    labels, scores, offsets = constructed()
    rng = np.random.default_rng(0)
    more = rng.integers(0, 3, 200).astype(float)
    more_scores = np.round(rng.random(200), 2)
    labels = np.concatenate([labels, more])
    scores = np.concatenate([scores, more_scores])
    offsets = np.concatenate([offsets, offsets[-1] + np.arange(10, 201, 10)])
    out = cc.crosscheck_arrays(
        library, labels, scores, offsets, metric="ndcg@3", library_profile=profile,
        default_profile=LTR, evaluate=slow_evaluate, provider=injected_provider(library), logged=None,
    )
    (check,) = out.checks
    assert check.source == "recomputed"
    assert check.agreement == "exact", check
    assert check.abs_diff <= 1e-9
    assert out.reconciliation.explained
    assert out.reconciliation.reasons["blank_query"] != 0.0


def test_xgboost_float32_tie_is_invisible_to_a_float64_reference() -> None:
    # With a float64 "xgboost" profile the 1e-9 query disagrees with XGBoost's own value: the
    # crosscheck reports the mismatch (it is never silently accepted).
    labels = np.array([1.0, 0.0])
    scores = np.array([1.0, 1.0 + 1e-9])
    offsets = np.array([0, 2])
    wrong = dataclasses.replace(XGB, score_dtype="float64")
    out = cc.crosscheck_arrays("xgboost", labels, scores, offsets, metric="ndcg@1",
                               library_profile=wrong, default_profile=LTR,
                               evaluate=slow_evaluate, provider=injected_provider("xgboost"))
    assert out.checks[0].builtin == 1.0  # tie in float32, input order: the relevant doc first
    assert out.checks[0].reference == 0.0
    assert out.checks[0].agreement == "mismatch"


def test_logged_value_is_checked_with_its_iteration() -> None:
    labels, scores, offsets = constructed()
    ref = slow_evaluate(labels, scores, group=np.diff(offsets), metrics=["ndcg@3"], profile=LGB)
    out = cc.crosscheck_arrays("lightgbm", labels, scores, offsets, metric="ndcg@3",
                               library_profile=LGB, default_profile=LTR, evaluate=slow_evaluate,
                               logged=round(ref.metrics["ndcg@3"], 6), logged_iteration=17,
                               recompute=False)
    (check,) = out.checks
    assert check.source == "evallog"
    assert check.iteration == 17
    # within 1e-6, float32 scores do not explain it: a value written with 6 decimals does
    assert check.agreement == "rounding"


# ------------------------------------------------------------------------------------------
# A whole run directory
# ------------------------------------------------------------------------------------------


def write_xrun(root: Path, *, shift_builtin: float = 0.0) -> Path:
    """Run directory with labels (train/vali/test), scores of two models x two seeds, an eval
    log whose value at the chosen iteration is LightGBM's/XGBoost's own, and timings."""
    run = root / "runs" / "xrun"
    run.mkdir(parents=True)
    (run / "config.toml").write_text('dataset = "toy"\nprofile = "ltrbench"\n')
    rng = np.random.default_rng(5)
    lab_rows, score_rows, log_rows, t_rows, m_rows = [], [], [], [], []
    splits = {}
    for split, nq in (("train", 8), ("vali", 6), ("test", 7)):
        sizes = rng.integers(2, 9, nq)
        labels = rng.integers(0, 3, sizes.sum()).astype(float)
        qid = np.repeat(np.arange(nq) + 100, sizes)
        # one blank query per split, more in train
        labels[qid == 100] = 0.0
        if split == "train":
            labels[qid == 101] = 0.0
        splits[split] = (labels, qid, np.concatenate([[0], np.cumsum(sizes)]))
        lab_rows += [(split, i, int(q), float(y)) for i, (q, y) in enumerate(zip(qid, labels, strict=True))]
    for model in ("lightgbm-lambdarank", "xgboost-ndcg", "random"):
        lib = model.split("-")[0]
        for seed in (0, 1):
            for split in ("vali", "test"):
                labels, qid, offsets = splits[split]
                scores = np.round(rng.normal(size=len(labels)), 1)
                score_rows += [(model, seed, split, i, float(s)) for i, s in enumerate(scores)]
                if split == "vali" and lib in ("lightgbm", "xgboost"):
                    value = injected_builtin(lib, labels, scores, offsets, "ndcg@10") + shift_builtin
                    for it in (1, 2, 3):
                        log_rows.append((model, seed, it, "vali", "ndcg@10", value if it == 2 else 0.1))
                m_rows.append(("toy", model, lib, seed, split, "ndcg@10", 0.5, "ltrbench"))
            t_rows.append(("toy", model, lib, seed, 1.0, 0.1, 10.0, 2, 2))
    pd.DataFrame(lab_rows, columns=["split", "row", "qid", "label"]).to_parquet(run / "labels.parquet")
    pd.DataFrame(score_rows, columns=["model", "seed", "split", "row", "score"]).to_parquet(
        run / "scores.parquet"
    )
    pd.DataFrame(log_rows, columns=["model", "seed", "iteration", "split", "metric", "value"]).to_csv(
        run / "evallog.csv", index=False
    )
    pd.DataFrame(t_rows, columns=["dataset", "model", "library", "seed", "fit_s", "predict_s",
                                  "peak_rss_mb", "best_iteration", "n_trees"]).to_csv(
        run / "timings.csv", index=False
    )
    pd.DataFrame(m_rows, columns=["dataset", "model", "library", "seed", "split", "metric", "value",
                                  "profile"]).to_csv(run / "metrics.csv", index=False)
    return run


@pytest.fixture
def fake_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route the module's default evaluator, each library's built-in metric provider (its
    record's :meth:`~bench.runners.libraries.Library.provider`) and profile lookup to the slow
    reference, the injected built-ins and the stand-in profiles."""
    from bench.metrics import reconcile
    from bench.runners.libraries import Library

    monkeypatch.setattr(reconcile, "reference_evaluate", slow_evaluate)
    monkeypatch.setattr(reconcile, "get_profile", FAKE_PROFILES.__getitem__)
    monkeypatch.setattr(Library, "provider", lambda self: injected_provider(self.name))


@pytest.mark.usefixtures("fake_reference")
def test_crosscheck_run_checks_every_trained_model_and_writes_md_and_json(tmp_path: Path) -> None:
    run = write_xrun(tmp_path)
    res = cc.crosscheck_run(run)
    assert res.ok, res.errors
    assert res.dataset == "toy"
    assert res.blank_queries == {"train": 2, "vali": 1, "test": 1}
    # 2 models x 2 seeds x (vali: evallog + recomputed, test: recomputed) = 12 checks
    assert len(res.checks) == 12
    assert {c.model for c in res.checks} == {"lightgbm-lambdarank", "xgboost-ndcg"}
    assert all(c.agreement == "exact" for c in res.checks)
    logged = [c for c in res.checks if c.source == "evallog"]
    assert len(logged) == 4
    assert all(c.iteration == 2 for c in logged)
    assert len(res.cases) == 8
    for case in res.cases:
        r = case.reconciliation
        assert math.fsum(r.reasons.values()) == pytest.approx(r.gap, abs=1e-12)
        assert r.reasons["blank_query"] > 0  # blank scored 1 by the libraries
    paths = cc.write_crosscheck(res, tmp_path / "results")
    doc = json.loads(paths["json"].read_text())
    assert set(doc) >= {"dataset", "checks", "blank_queries", "reasons"}
    assert set(doc["reasons"]) == {"weights", "blank_query", "ties", "gain", "truncation",
                                   "float32"}
    assert set(doc["checks"][0]) >= {"model", "library", "split", "metric", "builtin",
                                     "reference", "abs_diff"}
    assert doc["checks"][0]["metric"] == "ndcg@10"
    means = np.mean([c.reconciliation.reasons["ties"] for c in res.cases])
    assert doc["reasons"]["ties"] == pytest.approx(means)
    md = paths["md"].read_text()
    assert "# Cross-check of built-in ndcg@10: toy" in md
    assert "| **mean over cases** |" in md
    assert "## Largest per-query contributions" in md
    assert "Status: **OK**" in md
    assert paths["md"].parent == tmp_path / "results" / "toy"


@pytest.mark.usefixtures("fake_reference")
def test_a_builtin_value_off_by_more_than_1e6_fails_the_crosscheck(tmp_path: Path) -> None:
    run = write_xrun(tmp_path, shift_builtin=1e-4)
    res = cc.crosscheck_run(run, models=["lightgbm"])
    assert not res.ok
    assert {c.model for c in res.checks} == {"lightgbm-lambdarank"}
    bad = [c for c in res.checks if c.agreement == "mismatch"]
    assert len(bad) == 2
    assert all(c.source == "evallog" for c in bad)
    assert any("|diff| 0.0001 > 1e-06" in e for e in res.errors)
    assert "Status: **FAILED**" in render_markdown(res)


@pytest.mark.usefixtures("fake_reference")
def test_unknown_model_is_an_error(tmp_path: Path) -> None:
    run = write_xrun(tmp_path)
    res = cc.crosscheck_run(run, models=["catboost-yetirank"])
    assert not res.ok
    assert "catboost-yetirank" in res.errors[0]


@pytest.mark.usefixtures("fake_reference")
def test_crosscheck_command_reuses_a_run_and_exits_nonzero_on_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.commands import crosscheck as command

    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    good = write_xrun(tmp_path / "good")
    args = parser.parse_args(["crosscheck", "--dataset", "toy", "--run", str(good), "--format",
                              "json", "--out", str(tmp_path / "res")])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dataset"] == "toy"
    assert doc["blank_queries"] == {"train": 2, "vali": 1, "test": 1}
    assert (tmp_path / "res" / "toy" / "crosscheck.md").is_file()
    bad = write_xrun(tmp_path / "bad", shift_builtin=1e-3)
    args = parser.parse_args(["crosscheck", "--dataset", "toy", "--run", str(bad), "--format",
                              "table", "--out", str(tmp_path / "res2")])
    assert args.func(args) == 1
    out = capsys.readouterr()
    assert "mismatch" in out.out
    # Without --run the latest run of the dataset under <out>/runs is reused.
    args = parser.parse_args(["crosscheck", "--dataset", "toy", "--out",
                              str(tmp_path / "good" / "results_unused"), "--runs-dir",
                              str(tmp_path / "good" / "runs"), "--format", "json"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == "xrun"


# ------------------------------------------------------------------------------------------
# The real reference evaluator (skips until bench.metrics exists)
# ------------------------------------------------------------------------------------------


def _real_metrics() -> Any:
    metrics = pytest.importorskip("bench.metrics")
    if not hasattr(metrics, "evaluate"):
        pytest.skip("bench.metrics.evaluate not written yet")
    return metrics


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_real_evaluator_reasons_add_up_and_appear_where_constructed(library: str) -> None:
    metrics = _real_metrics()
    labels, scores, offsets = constructed()
    rec = cc.reconcile(labels, scores, offsets, library_profile=library,
                       default_profile="ltrbench", metric="ndcg@3")
    assert rec.explained, rec
    assert math.fsum(rec.reasons.values()) + rec.residual == pytest.approx(rec.gap, abs=1e-12)
    assert math.fsum(rec.per_query["contribution"]) == pytest.approx(rec.gap, abs=1e-12)
    by_query = rec.per_query.groupby("query")["reason"].apply(set).to_dict()
    assert "blank_query" in by_query[0]
    assert "ties" in by_query[1]
    lib, dflt = metrics.get_profile(library), metrics.get_profile("ltrbench")
    if lib.gain != dflt.gain:
        assert "gain" in by_query[2]
    if getattr(lib, "k_beyond_n", None) != getattr(dflt, "k_beyond_n", None):
        assert "truncation" in by_query.get(3, set())
    if library == "xgboost":
        assert "float32" in by_query[4]
    else:
        assert rec.reasons["float32"] == 0.0


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_real_evaluator_agrees_with_the_library_on_injected_scores(library: str) -> None:
    _real_metrics()
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 30, 60)
    labels = rng.integers(0, 5, sizes.sum()).astype(float) * (rng.random(sizes.sum()) < 0.5)
    scores = np.round(rng.normal(size=sizes.sum()), 1)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    out = cc.crosscheck_arrays(library, labels, scores, offsets, metric="ndcg@10",
                               provider=injected_provider(library))
    assert out.checks[0].agreement == "exact", out.checks[0]
    assert out.reconciliation.explained


def test_real_builtin_metric_agrees_with_the_reference() -> None:
    _real_metrics()
    builtin = pytest.importorskip("bench.crosscheck.providers")
    labels, scores, offsets = constructed()
    for library in ("lightgbm", "xgboost"):
        value = builtin.builtin_metric(library, labels, scores, offsets, "ndcg@3")
        assert value == pytest.approx(injected_builtin(library, labels, scores, offsets, "ndcg@3"),
                                      abs=1e-12)
        out = cc.crosscheck_arrays(library, labels, scores, offsets, metric="ndcg@3")
        assert out.checks[0].agreement == "exact"
