"""The parity mapping: one Params reaches LightGBM and XGBoost as the parity table says.

Values are read back from what each library itself reports it used: the ``parameters:`` block of
a saved LightGBM model and ``Booster.save_config()`` of XGBoost, plus the trees they grew.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError
from bench.runners.params import (
    CATBOOST_MAX_DEPTH,
    PARITY,
    Params,
    catboost_params,
    label_gain_table,
    lightgbm_params,
    parity_markdown,
    xgboost_params,
)

PARAMS = Params(
    n_trees=3,
    num_leaves=7,
    learning_rate=0.05,
    max_bin=63,
    min_child_weight=0.5,
    min_data_in_leaf=3,
    min_split_gain=0.01,
    subsample=0.8,
    colsample=0.6,
    l1=0.1,
    l2=0.7,
    truncation_level=12,
    max_depth=5,
    n_threads=1,
    seed=42,
)


def _data(n_queries: int = 30, per: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 5))
    y = rng.integers(0, 4, n).astype(float)
    return X, y, np.repeat(np.arange(n_queries), per)


def _lightgbm_used(params: dict) -> dict[str, str]:
    X, y, q = _data()
    booster = lgb.train(params, lgb.Dataset(X, y, group=np.bincount(q)), num_boost_round=3)
    text = booster.model_to_string()
    block = text[text.index("parameters:") : text.index("end of parameters")]
    out = {}
    for line in block.splitlines():
        if line.startswith("[") and ": " in line:
            key, value = line[1:-1].split(": ", 1)
            out[key] = value
    return out


def test_lightgbm_receives_every_mapped_parameter():
    used = _lightgbm_used(lightgbm_params(PARAMS, "lambdarank"))
    expected = {
        "objective": "lambdarank",
        "learning_rate": "0.05",
        "num_leaves": "7",
        "max_depth": "5",
        "max_bin": "63",
        "min_sum_hessian_in_leaf": "0.5",
        "min_data_in_leaf": "3",
        "min_gain_to_split": "0.01",
        "bagging_fraction": "0.8",
        "bagging_freq": "1",
        "bagging_by_query": "0",
        "feature_fraction": "0.6",
        "lambda_l1": "0.1",
        "lambda_l2": "0.7",
        "lambdarank_truncation_level": "12",
        "lambdarank_norm": "1",
        "num_threads": "1",
        "seed": "42",
        "deterministic": "1",
        "force_row_wise": "1",
        "eval_at": "1,3,5,10",
        "label_gain": ",".join(str(2**i - 1) for i in range(31)),
    }
    assert {k: used[k] for k in expected} == expected


def test_lightgbm_linear_gain_and_no_bagging_when_subsample_is_one():
    p = Params(label_gain="linear", subsample=1.0, n_threads=1)
    used = _lightgbm_used(lightgbm_params(p, "lambdarank"))
    assert used["label_gain"] == ",".join(str(i) for i in range(31))
    assert used["bagging_freq"] == "0"


def test_xgboost_receives_every_mapped_parameter():
    X, y, q = _data()
    d = xgb.DMatrix(X, label=y, qid=q)
    booster = xgb.train(xgboost_params(PARAMS, "ndcg"), d, num_boost_round=3)
    cfg = json.loads(booster.save_config())["learner"]
    tree = cfg["gradient_booster"]["tree_train_param"]
    assert cfg["gradient_booster"]["gbtree_train_param"]["tree_method"] == "hist"
    assert tree["grow_policy"] == "lossguide"
    assert int(tree["max_leaves"]) == 7
    assert int(tree["max_depth"]) == 5
    assert int(tree["max_bin"]) == 63
    for key, want in (("eta", 0.05), ("min_child_weight", 0.5), ("gamma", 0.01), ("subsample", 0.8),
                      ("colsample_bytree", 0.6), ("alpha", 0.1), ("lambda", 0.7)):
        assert float(tree[key]) == pytest.approx(want, rel=1e-6), key
    obj = cfg["objective"]
    assert obj["name"] == "rank:ndcg"
    lr = obj["lambdarank_param"]
    assert lr["lambdarank_pair_method"] == "topk"
    assert int(lr["lambdarank_num_pair_per_sample"]) == 12
    assert lr["ndcg_exp_gain"] == "1"
    assert lr["lambdarank_normalization"] == "1"
    assert lr["lambdarank_score_normalization"] == "1"
    assert cfg["generic_param"]["nthread"] == "1"
    assert cfg["generic_param"]["seed"] == "42"
    assert [m["name"] for m in cfg["metrics"]] == ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"]


def test_unlimited_depth_maps_to_each_librarys_spelling():
    p = Params(max_depth=-1)
    assert lightgbm_params(p, "lambdarank")["max_depth"] == -1
    assert xgboost_params(p, "ndcg")["max_depth"] == 0


def test_trees_respect_num_leaves_in_both_libraries():
    X, y, q = _data(60, 20, seed=3)
    p = Params(num_leaves=5, min_data_in_leaf=1, min_child_weight=0.0, n_threads=1)
    lgb_booster = lgb.train(lightgbm_params(p, "lambdarank"), lgb.Dataset(X, y, group=np.bincount(q)), 5)
    lgb_leaves = [t["num_leaves"] for t in lgb_booster.dump_model()["tree_info"]]
    xgb_booster = xgb.train(xgboost_params(p, "ndcg"), xgb.DMatrix(X, label=y, qid=q), 5)
    frame = xgb_booster.trees_to_dataframe()
    xgb_leaves = frame[frame["Feature"] == "Leaf"].groupby("Tree").size().tolist()
    assert max(lgb_leaves) == 5  # leaf-wise growth reaches the cap on this data
    assert max(xgb_leaves) == 5
    assert all(n <= 5 for n in lgb_leaves + xgb_leaves)


def test_raw_library_tables_override_the_mapping():
    p = Params().with_overrides(lightgbm=(("min_data_in_bin", 7),),
                                xgboost=(("max_cat_to_onehot", 2),))
    assert lightgbm_params(p, "lambdarank")["min_data_in_bin"] == 7
    assert xgboost_params(p, "ndcg")["max_cat_to_onehot"] == 2


@pytest.mark.parametrize(
    ("objective", "expected"),
    [("lambdarank", "lambdarank"), ("xendcg", "rank_xendcg"), ("regression", "regression")],
)
def test_lightgbm_objectives(objective, expected):
    assert lightgbm_params(Params(), objective)["objective"] == expected


@pytest.mark.parametrize(
    ("objective", "expected"),
    [("ndcg", "rank:ndcg"), ("pairwise", "rank:pairwise"), ("map", "rank:map"),
     ("regression", "reg:squarederror")],
)
def test_xgboost_objectives(objective, expected):
    assert xgboost_params(Params(), objective)["objective"] == expected


def test_unknown_objective_lists_valid_ones():
    with pytest.raises(ConfigError, match="valid: lambdarank, xendcg, regression"):
        lightgbm_params(Params(), "ndcg")
    with pytest.raises(ConfigError, match=r"valid: ndcg, pairwise, map, regression"):
        xgboost_params(Params(), "lambdarank")


def test_unknown_parameter_names_the_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown parameter.*num_leaf.*valid:.*num_leaves"):
        Params.from_dict({"num_leaf": 31})


@pytest.mark.parametrize(
    "bad",
    [{"subsample": 0.0}, {"colsample": 1.5}, {"n_trees": 0}, {"label_gain": "log"},
     {"learning_rate": 0.0}, {"n_threads": -1}],
)
def test_out_of_range_parameters_are_refused(bad):
    with pytest.raises(ConfigError):
        Params.from_dict(bad)


def test_label_gain_tables():
    assert label_gain_table("exp2")[:5] == [0.0, 1.0, 3.0, 7.0, 15.0]
    assert label_gain_table("linear")[:5] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert len(label_gain_table("exp2")) == 31


def test_learning_rate_schedule_matches_lightgbm_test_formula():
    p = Params(learning_rate=0.1, learning_rate_decay=0.01, learning_rate_min=0.01)
    assert [p.learning_rate_at(i) for i in (0, 1, 5, 9, 20)] == pytest.approx(
        [max(0.01, 0.1 - 0.01 * i) for i in (0, 1, 5, 9, 20)]
    )


def test_every_shared_parameter_has_a_parity_row():
    covered = {tok for r in PARITY for tok in re.findall(r"[A-Za-z0-9_]+", r.ltrbench)}
    missing = [
        f.name for f in fields(Params)
        if f.name != "raw" and f.name not in covered
    ]
    assert missing == []


def test_parity_markdown_has_one_row_per_entry():
    md = parity_markdown()
    lines = md.strip().splitlines()
    assert lines[0] == "| ltrbench | LightGBM | XGBoost | note | Dask engine |"
    assert len(lines) == 2 + len(PARITY)
    assert "| min_data_in_leaf | min_data_in_leaf | (none) |" in md
    assert "max_leaves + grow_policy=lossguide + tree_method=hist" in md
    assert all(line.count(" | ") == 4 for line in lines[2:])  # five cells: the Dask column too


@settings(max_examples=40, deadline=None)
@given(
    num_leaves=st.integers(2, 300),
    lr=st.floats(1e-4, 1.0),
    sub=st.floats(0.05, 1.0),
    l2=st.floats(0.0, 100.0),
    gain=st.sampled_from(["exp2", "linear"]),
)
def test_params_round_trip_through_plain_values(num_leaves, lr, sub, l2, gain):
    p = Params(num_leaves=num_leaves, learning_rate=lr, subsample=sub, l2=l2,
               label_gain=gain).with_overrides(lightgbm=(("min_data_in_bin", 5),))
    assert Params.from_dict(p.to_dict()) == p
    assert xgboost_params(p, "ndcg")["max_leaves"] == lightgbm_params(p, "lambdarank")["num_leaves"]
    assert xgboost_params(p, "ndcg")["ndcg_exp_gain"] == (gain == "exp2")


# --- CatBoost: read back from the trained model -----------------------------------------------


def _catboost_model(params: dict):
    from catboost import CatBoost, Pool

    X, y, q = _data()
    model = CatBoost(params)
    model.fit(Pool(X[:200], y[:200], group_id=q[:200]), eval_set=Pool(X[200:], y[200:], group_id=q[200:]))
    return model


def test_catboost_receives_every_mapped_parameter():
    """What CatBoost itself reports it used (``get_all_params``; floats are stored as float32)."""
    pytest.importorskip("catboost")
    model = _catboost_model(catboost_params(PARAMS, "yetirank", select_k=10))
    used = model.get_all_params()
    assert used["loss_function"] == "YetiRank"
    assert used["iterations"] == 3
    assert used["grow_policy"] == "Lossguide"
    assert used["max_leaves"] == 7
    assert used["depth"] == 5
    assert used["border_count"] == 62  # max_bin 63: 62 borders, 63 bins
    assert used["min_data_in_leaf"] == 3
    assert used["bootstrap_type"] == "Bernoulli"
    assert used["random_seed"] == 42
    assert used["eval_metric"] == "NDCG:top=10;type=Exp;hints=skip_train~false"
    for key, want in (("learning_rate", 0.05), ("l2_leaf_reg", 0.7), ("subsample", 0.8), ("rsm", 0.6)):
        assert used[key] == pytest.approx(want, rel=1e-6), key
    assert model.get_params()["thread_count"] == 1
    assert model.tree_count_ == 3
    assert max(model.get_tree_leaf_counts()) <= 7
    logged = model.get_evals_result()
    for split in ("learn", "validation"):
        assert {f"NDCG:top={k};type=Exp" for k in (1, 3, 5, 10)} <= set(logged[split]), split


@pytest.mark.parametrize(("objective", "loss"), [
    ("yetirank", "YetiRank"), ("pairlogit", "PairLogit"), ("queryrmse", "QueryRMSE"),
    ("lambdamart", "LambdaMart:metric=NDCG;type=Exp;norm=true"),
])
def test_catboost_objectives(objective, loss):
    assert catboost_params(Params(), objective)["loss_function"] == loss


def test_catboost_unlimited_depth_linear_gain_and_raw_table():
    p = Params(max_depth=-1, label_gain="linear").with_overrides(catboost={"border_count": 32})
    out = catboost_params(p, "yetirank", eval_at=(3, 10), select_k=10, log_train=False)
    assert out["depth"] == CATBOOST_MAX_DEPTH == 16
    assert out["eval_metric"] == "NDCG:top=10;type=Base"
    assert out["custom_metric"] == ["NDCG:top=3;type=Base"]
    assert out["border_count"] == 32


@pytest.mark.parametrize("bad", [{"learning_rate_decay": 0.01}, {"device": "cuda"}])
def test_catboost_refuses_what_it_cannot_honour(bad):
    with pytest.raises(ConfigError):
        catboost_params(Params(**bad), "yetirank")


def test_catboost_fit_is_reproducible_for_one_seed():
    """The parity row's determinism claim: the same seed and thread count give the same model."""
    pytest.importorskip("catboost")
    params = catboost_params(PARAMS, "yetirank")
    X, _, _ = _data()
    a, b = _catboost_model(params), _catboost_model(params)
    np.testing.assert_array_equal(a.predict(X, prediction_type="RawFormulaVal"),
                                  b.predict(X, prediction_type="RawFormulaVal"))


def test_parity_markdown_with_the_catboost_column():
    lines = parity_markdown(catboost=True).strip().splitlines()
    assert lines[0].endswith("| Dask engine | CatBoost |")
    assert all(row.catboost for row in PARITY)
    assert "| min_data_in_leaf | min_data_in_leaf | (none) |" in parity_markdown(catboost=True)
