"""Round 17: a GBDT maintainer who does not believe the cross-check.

The claim attacked: every built-in metric of LightGBM, XGBoost and CatBoost equals the reference
under the library's profile per query, and the cross-check explains every difference query by
query. The attacker tries (a) an OK while the library's number and the reference differ, (b) a
failure or a traceback while they agree, (c) a difference explained by the wrong reason.

Oracles: each library's own metric computed here through its own API (``lgb.Booster`` on
``init_score``, ``xgb.train`` on ``base_margin`` with zero trees, ``catboost.utils.eval_metric``),
never through ``bench.crosscheck.providers``; hand arithmetic on tiny queries; the exit status
and the message of ``ltrbench crosscheck``.

Found on the base (each fixed):

1. A run trained with ``label_gain = "linear"`` (the documented shared parameter; LightGBM's
   ``label_gain`` table, XGBoost's ``ndcg_exp_gain=false``, CatBoost's ``type=Base``) failed the
   cross-check of every model although each library's logged value equals the reference under
   linear gain: the cross-check compared with the exp2 profile (and recomputed with exp2 gain),
   and said the gap owed nothing to the gain.
2. ``--metric ndcg@10-`` (XGBoost's ``-`` suffix, accepted at the door) failed every XGBoost
   pair with "unknown metric 'ndcg@10-'".
3. A logged value 4e-7 away from the reference at full precision (the eval log of another
   iteration, where one query of two thousand moved) was ``rounding``: OK. ``rounding`` is now
   what it says, a value shown with fewer digits that is the reference rounded to them.
4. A metric only XGBoost has (``pre@5``, ``ndcg``, ``ndcg@10-``) failed the LightGBM and
   CatBoost pairs with "metric not supported here"; now those are notes (an error when
   ``--models`` named them, or when no model has the metric), and ``--models lightgbm --metric
   pre@5`` is refused before a run is trained (it trained one, then failed).
5. An unlogged metric's note read "no map@10 in evallog.csv at iteration None".
6. ``crosscheck.md`` did not say which profile the reference column used.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile_kit import cli

from bench import crosscheck as cc
from bench.crosscheck.agreement import classify_agreement
from bench.errors import LtrbenchError
from bench.metrics import evaluate

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
catboost_utils = pytest.importorskip("catboost.utils")

LOG3 = math.log2(3)


# ------------------------------------------------------------------------------------------
# The libraries' own metrics, through their own APIs
# ------------------------------------------------------------------------------------------


def lgb_value(labels: Any, scores: Any, sizes: Any, metric: str, gain: str = "exp2") -> float:
    family, k = metric.split("@")
    table = [float(2**i - 1) if gain == "exp2" else float(i) for i in range(31)]
    ds = lgb.Dataset(np.zeros((len(labels), 1)), label=np.asarray(labels, float),
                     group=list(sizes), init_score=np.asarray(scores, float),
                     params={"verbose": -1})
    booster = lgb.Booster(params={"objective": "none", "metric": family, "eval_at": [int(k)],
                                  "label_gain": table, "verbose": -1}, train_set=ds)
    return float(booster.eval_train()[0][2])


def xgb_value(labels: Any, scores: Any, sizes: Any, metric: str, gain: str = "exp2") -> float:
    d = xgb.DMatrix(np.zeros((len(labels), 1)), label=np.asarray(labels, float),
                    base_margin=np.asarray(scores, float))
    d.set_group(list(sizes))
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": metric, "nthread": 1,
                         "ndcg_exp_gain": gain == "exp2", "base_score": 0.0}, d,
                        num_boost_round=0)
    return float(booster.eval(d).split(":")[-1])


def cb_value(labels: Any, scores: Any, sizes: Any, metric: str, gain: str = "exp2") -> float:
    family, k = metric.split("@")
    name = (f"NDCG:top={k};type={'Exp' if gain == 'exp2' else 'Base'}" if family == "ndcg"
            else f"MAP:top={k}")
    gid = np.repeat(np.arange(len(sizes)), sizes)
    return float(catboost_utils.eval_metric(np.asarray(labels, float), np.asarray(scores, float),
                                            name, group_id=gid)[0])


ORACLE = {"lightgbm": lgb_value, "xgboost": xgb_value, "catboost": cb_value}


def offsets(sizes: list[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def arrays_check(library: str, labels: Any, scores: Any, sizes: list[int], metric: str,
                 **kw: Any) -> cc.ArrayCrosscheck:
    return cc.crosscheck_arrays(library, np.asarray(labels, float), np.asarray(scores, float),
                                offsets(sizes), metric=metric, **kw)


# ------------------------------------------------------------------------------------------
# Conventions: the built-in, the reference under the library's profile, the hand value
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_single_document_queries_agree_with_the_library_and_by_hand(library: str) -> None:
    # three queries of one document: relevant (1), not relevant (blank: the library's 1)
    labels, scores, sizes = [2.0, 0.0, 1.0], [0.3, -1.0, 5.0], [1, 1, 1]
    out = arrays_check(library, labels, scores, sizes, "ndcg@10")
    (check,) = out.checks
    assert check.builtin == ORACLE[library](labels, scores, sizes, "ndcg@10") == 1.0
    assert check.agreement == "exact"
    rec = out.reconciliation
    # ltrbench leaves the blank query out: 1.0 over two queries; the gap is all blank_query
    assert rec.default_value == 1.0
    assert rec.gap == 0.0
    assert rec.explained


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_constant_scores_keep_row_order_in_the_library_and_the_ties_reason(library: str) -> None:
    labels, scores, sizes = [0.0, 1.0], [0.5, 0.5], [2]
    out = arrays_check(library, labels, scores, sizes, "ndcg@1")
    (check,) = out.checks
    assert check.builtin == ORACLE[library](labels, scores, sizes, "ndcg@1") == 0.0
    assert check.agreement == "exact"
    rec = out.reconciliation
    assert rec.default_value == pytest.approx(0.5)  # averaged tie: gain 1/2 at rank 1
    assert rec.reasons["ties"] == pytest.approx(-0.5, abs=1e-15)
    assert set(rec.per_query["reason"]) == {"ties"}


def test_catboost_constant_scores_put_the_lower_label_first_by_hand() -> None:
    labels, scores, sizes = [1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3]
    out = arrays_check("catboost", labels, scores, sizes, "ndcg@3")
    (check,) = out.checks
    pessimistic = (1 / LOG3 + 3 / 2) / (3 + 1 / LOG3)  # order 0, 1, 2 by label
    assert check.builtin == pytest.approx(pessimistic, abs=1e-15)
    assert check.builtin == pytest.approx(cb_value(labels, scores, sizes, "ndcg@3"), abs=1e-15)
    assert check.agreement == "exact"
    assert set(out.reconciliation.per_query["reason"]) == {"ties"}


def test_xgboost_float32_tie_is_explained_by_float32_not_ties_alone() -> None:
    # 1 and 1 + 1e-9 are one float32: XGBoost keeps row order (the relevant doc first)
    labels, scores, sizes = [1.0, 0.0], [1.0, 1.0 + 1e-9], [2]
    out = arrays_check("xgboost", labels, scores, sizes, "ndcg@1")
    (check,) = out.checks
    assert check.builtin == xgb_value(labels, scores, sizes, "ndcg@1") == 1.0
    assert check.agreement == "exact"
    rec = out.reconciliation
    assert rec.default_value == 0.0  # float64: the irrelevant doc is strictly first
    assert "float32" in set(rec.per_query["reason"])
    assert math.fsum(rec.reasons.values()) == pytest.approx(rec.gap, abs=1e-15)


@pytest.mark.parametrize("metric", ["ndcg", "map", "pre"])
def test_xgboost_metric_without_cutoff_truncates_at_32_and_says_truncation(metric: str) -> None:
    labels = np.zeros(40)
    labels[34] = 1.0  # the only relevant document at rank 35
    scores, sizes = -np.arange(40.0), [40]
    out = arrays_check("xgboost", labels, scores, sizes, metric)
    (check,) = out.checks
    assert check.builtin == xgb_value(labels, scores, sizes, metric) == 0.0
    assert check.agreement == "exact"
    rec = out.reconciliation
    hand = {"ndcg": 1 / math.log2(36), "map": 1 / 35, "pre": 1 / 40}[metric]
    assert rec.default_value == pytest.approx(hand, abs=1e-15)
    assert rec.reasons["truncation"] == pytest.approx(-hand, abs=1e-15)
    assert set(rec.per_query["reason"]) == {"truncation"}


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_cutoff_above_the_query_size_equals_the_whole_query(library: str) -> None:
    labels, scores, sizes = [1.0, 0.0, 2.0], [0.9, 0.5, 0.1], [3]
    whole = ORACLE[library](labels, scores, sizes, "ndcg@3")
    out = arrays_check(library, labels, scores, sizes, "ndcg@50")
    assert out.checks[0].builtin == pytest.approx(whole, abs=1e-15)
    assert out.checks[0].agreement == "exact"
    assert out.reconciliation.reasons["truncation"] == 0.0


def test_lightgbm_label_30_uses_the_last_gain_of_its_table() -> None:
    labels, scores, sizes = [30.0, 29.0, 0.0], [0.1, 0.9, 0.5], [3]
    # order 29, 0, 30: DCG@2 = 2^29 - 1, the ideal 2^30 - 1 then 2^29 - 1 at rank 2
    hand = (2**29 - 1) / ((2**30 - 1) + (2**29 - 1) / LOG3)
    out = arrays_check("lightgbm", labels, scores, sizes, "ndcg@2")
    assert out.checks[0].builtin == pytest.approx(hand, abs=1e-15)
    assert out.checks[0].builtin == lgb_value(labels, scores, sizes, "ndcg@2")
    assert out.checks[0].agreement == "exact"


def test_lightgbm_label_31_is_a_clear_error_not_a_traceback() -> None:
    with pytest.raises(LtrbenchError, match="31") as info:
        arrays_check("lightgbm", [31.0, 0.0], [0.1, 0.2], [2], "ndcg@2")
    assert "30" in str(info.value)


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_map_with_a_blank_query_agrees_and_the_blank_is_the_reason(library: str) -> None:
    labels, scores, sizes = [0.0, 0.0, 1.0, 0.0, 1.0], [0.3, 0.2, 0.5, 0.9, 0.1], [2, 3]
    out = arrays_check(library, labels, scores, sizes, "map@2")
    assert out.checks[0].builtin == ORACLE[library](labels, scores, sizes, "map@2")
    assert out.checks[0].agreement == "exact"
    rec = out.reconciliation
    ap = (1 / 2) / 2  # hit at rank 2, min(R = 2, k = 2)
    assert rec.library_value == pytest.approx((1.0 + ap) / 2, abs=1e-15)
    assert rec.default_value == pytest.approx(ap, abs=1e-15)
    assert set(rec.per_query["reason"]) == {"blank_query"}


def test_catboost_map_scores_a_blank_query_0_and_the_blank_is_the_reason() -> None:
    labels, scores, sizes = [0.0, 0.0, 1.0, 0.0, 1.0], [0.3, 0.2, 0.5, 0.9, 0.1], [2, 3]
    out = arrays_check("catboost", labels, scores, sizes, "map@2")
    assert out.checks[0].builtin == pytest.approx(cb_value(labels, scores, sizes, "map@2"),
                                                  abs=1e-15)
    assert out.checks[0].agreement == "exact"
    assert out.reconciliation.reasons["blank_query"] < 0  # 0 counted, then left out
    assert out.reconciliation.explained


def test_lightgbm_map_counts_label_1_and_2_as_relevant() -> None:
    labels, scores, sizes = [2.0, 0.0, 1.0, 0.0], [0.9, 0.8, 0.7, 0.6], [4]
    out = arrays_check("lightgbm", labels, scores, sizes, "map@4")
    hand = (1 / 1 + 2 / 3) / 2
    assert out.checks[0].builtin == pytest.approx(hand, abs=1e-15)
    assert out.checks[0].agreement == "exact"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_many_ties_and_blank_queries_agree_to_1e_15(library: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = [int(x) for x in rng.integers(1, 25, 12)]
    n = sum(sizes)
    labels = rng.integers(0, 5, n).astype(float) * (rng.random(n) < 0.5)
    scores = np.round(rng.normal(size=n), 1)  # many ties
    out = arrays_check(library, labels, scores, sizes, "ndcg@5")
    own = ORACLE[library](labels, scores, sizes, "ndcg@5")
    assert abs(out.checks[0].builtin - own) <= 1e-15
    assert out.checks[0].abs_diff <= 1e-15
    rec = out.reconciliation
    assert rec.explained
    assert math.fsum(rec.per_query["contribution"]) == pytest.approx(rec.gap, abs=1e-12)


# ------------------------------------------------------------------------------------------
# Linear gain (the shared parameter label_gain = "linear")
# ------------------------------------------------------------------------------------------

GRADED = ([1.0, 2.0, 0.0, 3.0, 0.0, 1.0], [2.0, 1.0, 0.5, 0.1, 0.9, 0.3], [3, 3])


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_linear_gain_is_checked_against_a_linear_gain_reference(library: str) -> None:
    labels, scores, sizes = GRADED
    own = ORACLE[library](labels, scores, sizes, "ndcg@3", gain="linear")
    out = arrays_check(library, labels, scores, sizes, "ndcg@3", label_gain="linear",
                       logged=own)
    assert [c.agreement for c in out.checks] == ["exact", "exact"], out.checks
    assert out.checks[1].builtin == pytest.approx(own, abs=1e-15)
    # by hand: q0 gains 1, 2, 0 in that order (ideal 2, 1); q1 gains 0, 1, 3 (ideal 3, 1)
    q0 = (1 + 2 / LOG3) / (2 + 1 / LOG3)
    q1 = (1 / LOG3 + 3 / 2) / (3 + 1 / LOG3)
    assert out.reconciliation.library_value == pytest.approx((q0 + q1) / 2, abs=1e-15)


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_linear_gain_gap_to_ltrbench_is_explained_by_gain(library: str) -> None:
    labels, scores, sizes = GRADED
    out = arrays_check(library, labels, scores, sizes, "ndcg@3", label_gain="linear")
    rec = out.reconciliation
    assert rec.explained
    assert rec.reasons["gain"] != 0.0
    assert set(rec.per_query["reason"]) == {"gain"}
    assert math.fsum(rec.reasons.values()) == pytest.approx(rec.gap, abs=1e-15)


def test_an_unknown_label_gain_is_a_clear_error() -> None:
    labels, scores, sizes = GRADED
    with pytest.raises(LtrbenchError, match=r"label_gain.*'log'"):
        arrays_check("lightgbm", labels, scores, sizes, "ndcg@3", label_gain="log")


# ------------------------------------------------------------------------------------------
# XGBoost's '-' suffix
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ndcg@2-", "map@2-", "ndcg-"])
def test_xgboost_minus_suffix_is_checked_under_blank_scores_0(metric: str) -> None:
    labels, scores, sizes = [0.0, 0.0, 1.0, 0.0, 1.0], [0.3, 0.2, 0.5, 0.9, 0.1], [2, 3]
    out = arrays_check("xgboost", labels, scores, sizes, metric)
    (check,) = out.checks
    own = xgb_value(labels, scores, sizes, metric)
    assert check.builtin == own
    assert check.agreement == "exact"
    assert check.metric == metric
    rec = out.reconciliation
    # the blank query scores 0 in the library, left out by ltrbench: the gap is blank_query
    assert rec.library_value == pytest.approx(own, abs=1e-15)
    assert rec.reasons["blank_query"] == pytest.approx(rec.gap, abs=1e-15)
    assert rec.gap < 0


def test_lightgbm_has_no_minus_suffix_and_says_so() -> None:
    with pytest.raises(LtrbenchError, match="ndcg@2-"):
        arrays_check("lightgbm", [1.0, 0.0], [0.1, 0.2], [2], "ndcg@2-")


# ------------------------------------------------------------------------------------------
# Tolerances: an unexplained difference is never OK
# ------------------------------------------------------------------------------------------


def test_a_full_precision_value_4e7_away_is_a_mismatch() -> None:
    assert classify_agreement(0.8123456789012345, 0.8123456789012345 + 4e-7)[1] == "mismatch"


def test_a_value_shown_with_6_decimals_that_rounds_the_reference_is_rounding() -> None:
    ref = 0.8123456789012345
    assert classify_agreement(round(ref, 6), ref)[1] == "rounding"
    assert classify_agreement(0.812346, ref)[1] == "rounding"
    # six decimals that are not the reference rounded: off by one unit of the 6th
    assert classify_agreement(0.812347, ref)[1] == "mismatch"


def test_float32_agreement_still_needs_the_flipped_reference() -> None:
    assert classify_agreement(0.5, 0.5 + 5e-8, float32_reference=0.5)[1] == "float32"
    assert classify_agreement(0.5000000731, 0.5 + 5e-8,
                              float32_reference=0.5000000123)[1] == "mismatch"


def _iteration_pair(nq: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Labels, the final scores and the scores of one iteration earlier: the same ranking but
    in one query of ``nq``, where the last two documents swap (LightGBM's value moves by
    < 1e-6)."""
    rng = np.random.default_rng(7)
    sizes = [10] * nq
    labels = rng.integers(0, 3, 10 * nq).astype(float)
    labels[:10] = [2.0] * 8 + [0.0, 1.0]
    final = rng.normal(size=10 * nq)
    final[:10] = -np.arange(10.0)  # ranks 9 and 10: labels 0 then 1
    earlier = final.copy()
    earlier[8:10] = [-9.0, -8.0]  # one iteration earlier: 1 then 0
    return labels, final, earlier, sizes


def test_an_eval_log_of_another_iteration_within_1e6_is_not_ok() -> None:
    labels, final, earlier, sizes = _iteration_pair()
    logged = lgb_value(labels, earlier, sizes, "ndcg@10")
    now = lgb_value(labels, final, sizes, "ndcg@10")
    assert 1e-9 < abs(logged - now) < 1e-6  # the attack: a real difference below 1e-6
    out = arrays_check("lightgbm", labels, final, sizes, "ndcg@10", logged=logged,
                       logged_iteration=9)
    by_source = {c.source: c for c in out.checks}
    assert by_source["recomputed"].agreement == "exact"
    assert by_source["evallog"].agreement == "mismatch", by_source["evallog"]


# ------------------------------------------------------------------------------------------
# A run folder: crosscheck_run and ltrbench crosscheck --run
# ------------------------------------------------------------------------------------------


def write_run(root: Path, *, params: str = "", model_params: str = "",
              logged: dict[str, float] | None = None,
              models: tuple[str, ...] = ("lightgbm-lambdarank", "xgboost-ndcg",
                                         "catboost-yetirank"),
              gains: dict[str, str] | None = None, metric: str = "ndcg@10") -> Path:
    """A run folder of graded labels (vali and test) and scores of ``models``, the eval log at the
    chosen iteration 3 holding each library's own value under its gain (``gains``, default
    exp2), or ``logged[model]`` instead."""
    run = root / "runs" / "r17f"
    run.mkdir(parents=True)
    (run / "config.toml").write_text('dataset = "toy"\nprofile = "ltrbench"\n'
                                     f"{params}{model_params}")
    rng = np.random.default_rng(3)
    lab_rows, score_rows, log_rows, t_rows = [], [], [], []
    data = {}
    for split in ("vali", "test"):
        sizes = [int(x) for x in rng.integers(2, 8, 6)]
        labels = rng.integers(0, 4, sum(sizes)).astype(float)
        qid = np.repeat(np.arange(6) + 10, sizes)
        labels[qid == 10] = 0.0  # a blank query
        data[split] = (labels, sizes)
        lab_rows += [(split, i, int(q), float(y)) for i, (q, y) in
                     enumerate(zip(qid, labels, strict=True))]
    for model in models:
        lib = model.split("-")[0]
        gain = (gains or {}).get(model, "exp2")
        for split, (labels, sizes) in data.items():
            scores = np.round(rng.normal(size=len(labels)), 1)
            score_rows += [(model, 0, split, i, float(s)) for i, s in enumerate(scores)]
            if split == "vali":
                own = (logged or {}).get(model)
                if own is None:
                    own = ORACLE[lib](labels, scores, sizes, metric, gain=gain)
                log_rows += [(model, 0, it, "vali", metric, own if it == 3 else 0.1)
                             for it in (1, 2, 3, 4)]
        t_rows.append(("toy", model, lib, 0, 1.0, 0.1, 10.0, 3, 4))
    pd.DataFrame(lab_rows, columns=["split", "row", "qid", "label"]).to_parquet(
        run / "labels.parquet")
    pd.DataFrame(score_rows, columns=["model", "seed", "split", "row", "score"]).to_parquet(
        run / "scores.parquet")
    pd.DataFrame(log_rows, columns=["model", "seed", "iteration", "split", "metric",
                                    "value"]).to_csv(run / "evallog.csv", index=False)
    pd.DataFrame(t_rows, columns=["dataset", "model", "library", "seed", "fit_s", "predict_s",
                                  "peak_rss_mb", "best_iteration", "n_trees"]).to_csv(
        run / "timings.csv", index=False)
    return run


def test_a_clean_run_folder_is_ok(tmp_path: Path) -> None:
    res = cc.crosscheck_run(write_run(tmp_path))
    assert res.ok, res.errors
    assert {c.agreement for c in res.checks} == {"exact"}
    assert len(res.checks) == 9  # 3 models: vali logged + recomputed, test recomputed


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_a_run_trained_with_linear_gain_is_ok(tmp_path: Path, library: str) -> None:
    model = {"lightgbm": "lightgbm-lambdarank", "xgboost": "xgboost-ndcg",
             "catboost": "catboost-yetirank"}[library]
    run = write_run(tmp_path, params='[params]\nlabel_gain = "linear"\n', models=(model,),
                    gains={model: "linear"})
    res = cc.crosscheck_run(run)
    assert res.ok, res.errors
    assert {c.agreement for c in res.checks} == {"exact"}
    assert all(case.reconciliation.explained for case in res.cases)
    assert any(case.reconciliation.reasons["gain"] != 0.0 for case in res.cases)


def test_a_per_model_linear_gain_applies_to_that_model_only(tmp_path: Path) -> None:
    run = write_run(tmp_path,
                    model_params='[model_params.lightgbm-lambdarank]\nlabel_gain = "linear"\n',
                    gains={"lightgbm-lambdarank": "linear"})
    res = cc.crosscheck_run(run)
    assert res.ok, res.errors
    gains = {c.model: c.reconciliation.reasons["gain"] for c in res.cases}
    assert gains["lightgbm-lambdarank"] != 0.0
    assert gains["xgboost-ndcg"] == 0.0
    assert gains["catboost-yetirank"] == 0.0


def test_a_linear_gain_run_whose_log_is_exp2_fails_naming_the_gain(tmp_path: Path) -> None:
    # the config says linear, the library logged exp2: they differ, the check must fail
    run = write_run(tmp_path, params='[params]\nlabel_gain = "linear"\n',
                    models=("lightgbm-lambdarank",))
    res = cc.crosscheck_run(run)
    assert not res.ok
    assert any("lightgbm-lambdarank" in e and "label_gain=linear" in e for e in res.errors), \
        res.errors


def test_a_run_with_an_unknown_label_gain_is_a_clear_error(tmp_path: Path) -> None:
    run = write_run(tmp_path, params='[params]\nlabel_gain = "cubic"\n',
                    models=("lightgbm-lambdarank",))
    res = cc.crosscheck_run(run)
    assert not res.ok
    assert any("label_gain" in e and "cubic" in e for e in res.errors), res.errors


def test_a_run_with_the_minus_metric_checks_xgboost(tmp_path: Path) -> None:
    run = write_run(tmp_path, models=("xgboost-ndcg",), metric="ndcg@10-")
    res = cc.crosscheck_run(run, metric="ndcg@10-")
    assert res.ok, res.errors
    assert {c.agreement for c in res.checks} == {"exact"}
    assert {c.source for c in res.checks} == {"evallog", "recomputed"}


def test_an_eval_log_4e7_off_fails_the_run_folder(tmp_path: Path) -> None:
    clean = write_run(tmp_path / "a", models=("lightgbm-lambdarank",))
    log = pd.read_csv(clean / "evallog.csv")
    value = float(log[log["iteration"] == 3]["value"].iloc[0])
    run = write_run(tmp_path / "b", models=("lightgbm-lambdarank",),
                    logged={"lightgbm-lambdarank": value + 4e-7})
    res = cc.crosscheck_run(run)
    assert not res.ok
    assert any("evallog" in e and "lightgbm-lambdarank" in e for e in res.errors), res.errors


def test_the_command_exits_1_on_a_hidden_difference_and_names_it(tmp_path: Path) -> None:
    clean = write_run(tmp_path / "a", models=("lightgbm-lambdarank",))
    log = pd.read_csv(clean / "evallog.csv")
    value = float(log[log["iteration"] == 3]["value"].iloc[0])
    run = write_run(tmp_path / "b", models=("lightgbm-lambdarank",),
                    logged={"lightgbm-lambdarank": value + 4e-7})
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "out", "--format", "json")
    assert res.status == 1, res.err[-2000:]
    doc = json.loads(res.out)
    assert doc["ok"] is False
    bad = [c for c in doc["checks"] if c["agreement"] == "mismatch"]
    assert [(c["model"], c["source"]) for c in bad] == [("lightgbm-lambdarank", "evallog")]
    md = (tmp_path / "out" / "toy" / "crosscheck.md").read_text()
    assert "FAILED" in md


def test_the_command_exits_0_on_a_linear_gain_run(tmp_path: Path) -> None:
    run = write_run(tmp_path, params='[params]\nlabel_gain = "linear"\n',
                    gains={m: "linear" for m in ("lightgbm-lambdarank", "xgboost-ndcg",
                                                 "catboost-yetirank")})
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "out", "--format", "json")
    assert res.status == 0, (res.out[-3000:], res.err[-2000:])
    doc = json.loads(res.out)
    assert doc["ok"] is True
    assert doc["reasons"]["gain"] != 0.0


def test_the_command_with_the_minus_metric_exits_0_for_xgboost(tmp_path: Path) -> None:
    run = write_run(tmp_path, models=("xgboost-ndcg",), metric="ndcg@10-")
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "out", "--format", "json",
              "--metric", "ndcg@10-")
    assert res.status == 0, (res.out[-3000:], res.err[-2000:])
    assert json.loads(res.out)["ok"] is True


def test_the_per_query_table_adds_up_to_each_gap(tmp_path: Path) -> None:
    res = cc.crosscheck_run(write_run(tmp_path))
    for case in res.cases:
        rec = case.reconciliation
        assert math.fsum(rec.per_query["contribution"]) == pytest.approx(rec.gap, abs=1e-12)
        # the blank query (qid 10) is named with the blank_query reason in every case
        blank = rec.per_query[rec.per_query["reason"] == "blank_query"]
        assert list(blank["qid"].astype(str)) == ["10"], rec.per_query


def test_reference_of_the_run_equals_bench_evaluate_under_the_profile(tmp_path: Path) -> None:
    run = write_run(tmp_path, models=("xgboost-ndcg",))
    res = cc.crosscheck_run(run)
    labels = pd.read_parquet(run / "labels.parquet")
    scores = pd.read_parquet(run / "scores.parquet")
    lab = labels[labels["split"] == "test"].sort_values("row")
    sc = scores[scores["split"] == "test"].sort_values("row")
    sizes = lab.groupby("qid", sort=False).size().to_numpy()
    want = evaluate(lab["label"].to_numpy(), sc["score"].to_numpy(), group=sizes,
                    metrics=["ndcg@10"], profile="xgboost").metrics["ndcg@10"]
    (check,) = [c for c in res.checks if c.split == "test"]
    assert check.reference == want


# ------------------------------------------------------------------------------------------
# A metric only some libraries have
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ndcg@10-", "ndcg"])
def test_an_xgboost_only_metric_checks_xgboost_and_notes_the_others(tmp_path: Path,
                                                                     metric: str) -> None:
    res = cc.crosscheck_run(write_run(tmp_path), metric=metric)
    assert res.ok, res.errors
    assert {c.model for c in res.checks} == {"xgboost-ndcg"}
    assert {c.agreement for c in res.checks} == {"exact"}
    for title in ("LightGBM", "CatBoost"):
        assert any(title in n and metric in n and "not cross-checked" in n for n in res.notes), \
            res.notes


def test_a_metric_the_named_library_lacks_is_an_error(tmp_path: Path) -> None:
    res = cc.crosscheck_run(write_run(tmp_path), metric="ndcg@10-", models=["lightgbm"])
    assert not res.ok
    assert any("LightGBM has no built-in ndcg@10-" in e for e in res.errors), res.errors


def test_a_metric_no_model_of_the_run_has_is_not_a_pass(tmp_path: Path) -> None:
    run = write_run(tmp_path, models=("lightgbm-lambdarank", "catboost-yetirank"))
    res = cc.crosscheck_run(run, metric="pre@5")
    assert not res.ok
    assert any("nothing was cross-checked" in e and "pre@5" in e for e in res.errors), res.errors
    assert not any("ConfigError" in e for e in res.errors), res.errors


def test_an_unlogged_metric_says_what_was_checked_instead(tmp_path: Path) -> None:
    res = cc.crosscheck_run(write_run(tmp_path, models=("lightgbm-lambdarank",)),
                            metric="map@10")
    assert res.ok, res.errors
    assert [c.source for c in res.checks] == ["recomputed", "recomputed"]
    note = next(n for n in res.notes if "map@10" in n)
    assert "iteration None" not in note
    assert "recomputed" in note


def test_the_report_names_the_linear_gain_profile_it_checked_under(tmp_path: Path) -> None:
    run = write_run(tmp_path, params='[params]\nlabel_gain = "linear"\n',
                    models=("lightgbm-lambdarank",), gains={"lightgbm-lambdarank": "linear"})
    res = cc.crosscheck_run(run)
    assert res.ok, res.errors
    md = cc.write_crosscheck(res, tmp_path / "out")["md"].read_text()
    assert "lightgbm-lambdarank `lightgbm+label_gain=linear`" in md
    doc = json.loads(res.to_json())
    assert {c["library_profile"] for c in doc["cases"]} == {"lightgbm+label_gain=linear"}


def test_a_doubled_minus_suffix_is_refused_in_the_users_spelling() -> None:
    with pytest.raises(LtrbenchError, match="'ndcg@2--'"):
        arrays_check("xgboost", [1.0, 0.0], [0.1, 0.2], [2], "ndcg@2--")


def test_a_metric_none_of_the_named_models_has_is_refused_before_any_work(tmp_path: Path) -> None:
    # no --run: without the refusal the command would train a new run first, then fail
    res = cli(tmp_path, "crosscheck", "--dataset", "synthetic", "--models", "lightgbm",
              "--metric", "pre@5", "--out", "out")
    assert res.status == 2, (res.out[-2000:], res.err[-2000:])
    assert "pre@5" in res.err
    assert "--models" in res.err
    assert not (tmp_path / "out").exists()
