"""``run_benchmark`` and ``ltrbench run``: the run directory contract, resume, config, permute check, tune."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.benchmark import pipeline
from bench.benchmark.config import RunConfig, parse_seeds
from bench.benchmark.permute import permutation_within_queries, tied_fraction
from bench.benchmark.tune import parse_space, query_folds, tuning_data
from bench.crosscheck.providers import builtin_metric
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import write_svmlight
from bench.errors import ConfigError
from bench.runners.params import Params
from bench.runs import layout

CONTRACT = {
    "metrics.csv": ["dataset", "model", "library", "seed", "split", "metric", "value", "profile"],
    "per_query.parquet": ["dataset", "model", "seed", "split", "qid", "metric", "value"],
    "timings.csv": ["dataset", "model", "library", "seed", "fit_s", "predict_s", "peak_rss_mb",
                    "best_iteration", "n_trees", "fit_cpu_s", "other_load", "steal_load",
                    "contended", "timing", "repeats", "fit_s_min", "fit_s_max", "fit_s_repeats"],
    "evallog.csv": ["model", "seed", "iteration", "split", "metric", "value"],
    "scores.parquet": ["model", "seed", "split", "row", "score"],
    "labels.parquet": ["split", "row", "qid", "label"],
}
SMALL = Params(n_trees=12, num_leaves=7, min_data_in_leaf=5, early_stopping_rounds=4, n_threads=1,
               subsample=0.8)


def _part(n_queries: int, per: int, seed: int, *, blank: int = 0) -> LetorData:
    """Recommender-like rows: user = query, item ids, labels 0..2 from two features; the first
    ``blank`` queries get no relevant row."""
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 5))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=n), [0.3, 1.2]).astype(float)
    y[: blank * per] = 0.0
    users = np.repeat(np.arange(n_queries) + 100 * seed, per)
    return LetorData.build(X, y, qid=users, user=users, item=rng.integers(0, 25, n),
                           source=f"part{seed}")


@pytest.fixture(scope="module")
def splits() -> LetorSplits:
    return LetorSplits(name="toy", train=_part(30, 10, 1), vali=_part(12, 10, 2, blank=2),
                       test=_part(12, 10, 3, blank=3), inputs={"toy.txt": "0" * 64})


def _config(**kw) -> RunConfig:
    base = RunConfig(dataset="toy", models=("lightgbm-lambdarank", "xgboost-ndcg", "popularity", "random"),
                     seeds=(0, 1), params=SMALL, crosscheck=False)
    return replace(base, **kw)


@pytest.fixture(scope="module")
def run_dir(splits, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("results")
    return pipeline.run_benchmark(_config(), out_dir=out, progress=False, splits=splits)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in frame.columns if c not in ("value", "score", "fit_s", "predict_s", "peak_rss_mb")]
    return frame.sort_values(cols, kind="stable").reset_index(drop=True)


# --- the run directory ---------------------------------------------------------------------------


def test_run_directory_holds_the_contract_files_with_their_columns(run_dir):
    for name, cols in CONTRACT.items():
        frame = pd.read_parquet(run_dir / name) if name.endswith(".parquet") else pd.read_csv(run_dir / name)
        assert list(frame.columns) == cols, name
        assert len(frame) > 0, name
    assert sorted(p.name for p in (run_dir / "status").iterdir()) == sorted(
        f"{m}-seed{s}.json" for m in ("lightgbm-lambdarank", "xgboost-ndcg", "popularity", "random")
        for s in (0, 1))
    assert not list(run_dir.rglob("*.tmp"))  # atomic writes leave no temporary files
    assert run_dir.parent.name == "runs"


def test_manifest_records_versions_machine_seeds_inputs_and_times(run_dir):
    m = json.loads((run_dir / "manifest.json").read_text())
    env = m["environment"]
    assert {"numpy", "lightgbm", "xgboost", "pandas"} <= set(env["packages"])
    assert env["python"]
    assert env["platform"]
    assert env["cpu_model"]
    assert env["cpu_count"]
    assert m["threads"] == 1
    assert m["seeds"] == [0, 1]
    assert "commit" in m["git"]
    assert m["dataset"]["inputs"] == {"toy.txt": "0" * 64}
    assert set(m["dataset"]["summaries"]) == {"train", "vali", "test"}
    assert m["dataset"]["summaries"]["test"]["blank_queries"] == 3
    assert m["started"]
    assert m["finished"]
    assert m["finished"] >= m["started"]
    assert m["ltrbench_version"]
    assert m["selection"]["split"] == "vali"
    assert set(m["status"].values()) == {"done"}


def test_config_toml_is_the_resolved_config_and_reloads_to_the_same_hash(run_dir):
    cfg = RunConfig.load(run_dir / "config.toml")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert cfg.config_hash() == manifest["config_hash"]
    assert cfg.models == ("lightgbm-lambdarank", "xgboost-ndcg", "popularity", "random")
    assert cfg.params.n_trees == 12
    assert cfg.params.n_threads == 1


def test_metrics_are_the_reference_evaluator_on_the_saved_scores(run_dir):
    from bench.metrics import evaluate

    metrics = pd.read_csv(run_dir / "metrics.csv")
    scores = pd.read_parquet(run_dir / "scores.parquet")
    labels = pd.read_parquet(run_dir / "labels.parquet")
    for (model, seed, split), g in scores.groupby(["model", "seed", "split"]):
        lab = labels[labels.split == split].sort_values("row")
        s = g.sort_values("row").score.to_numpy()
        want = evaluate(lab.label.to_numpy(), s, qid=lab.qid.to_numpy(), metrics=("ndcg@10", "mrr"))
        got = metrics[(metrics.model == model) & (metrics.seed == seed) & (metrics.split == split)
                      & (metrics.profile == "ltrbench")].set_index("metric").value
        assert got["ndcg@10"] == want.metrics["ndcg@10"]
        assert got["mrr"] == want.metrics["mrr"]


def test_blank_query_rows_give_both_empty_query_policies(run_dir):
    metrics = pd.read_csv(run_dir / "metrics.csv")
    pq = pd.read_parquet(run_dir / "per_query.parquet")
    sel = (pq.model == "random") & (pq.seed == 0) & (pq.split == "test") & (pq.metric == "ndcg@5")
    values = pq[sel].value.to_numpy()
    assert np.isnan(values).sum() == 3
    row = metrics[(metrics.model == "random") & (metrics.seed == 0) & (metrics.split == "test")
                  & (metrics.metric == "ndcg@5")].set_index("profile").value
    assert row["ltrbench"] == pytest.approx(np.nanmean(values), abs=1e-12)
    assert row["ltrbench-blank0"] == pytest.approx(np.nan_to_num(values, nan=0.0).mean(), abs=1e-12)
    assert row["ltrbench-blank1"] == pytest.approx(np.nan_to_num(values, nan=1.0).mean(), abs=1e-12)
    # the run has blank queries, so blank-policy rows exist, and only for the NDCG metrics
    blank_rows = metrics[metrics.profile.str.contains("blank")]
    assert len(blank_rows) > 0
    assert set(blank_rows.metric.str[:4]) == {"ndcg"}


def test_timings_and_eval_log_agree_with_the_scores(run_dir, splits):
    timings = pd.read_csv(run_dir / "timings.csv")
    log = pd.read_csv(run_dir / "evallog.csv")
    scores = pd.read_parquet(run_dir / "scores.parquet")
    for row in timings.itertuples():
        if row.model in ("popularity", "random"):
            assert np.isnan(row.best_iteration)
            continue
        assert 1 <= row.best_iteration <= row.n_trees <= 12
        sub = log[(log.model == row.model) & (log.seed == row.seed)]
        assert sorted(set(sub.split)) == ["train", "vali"]
        assert sub.iteration.max() == row.n_trees
        logged = sub[(sub.split == "vali") & (sub.metric == "ndcg@10")
                     & (sub.iteration == row.best_iteration)].value.iloc[0]
        s = scores[(scores.model == row.model) & (scores.seed == row.seed) & (scores.split == "vali")]
        s = s.sort_values("row").score.to_numpy()
        lib = row.model.split("-")[0]
        assert builtin_metric(lib, splits.vali.y, s, splits.vali.offsets, "ndcg@10") == pytest.approx(logged, abs=1e-6)


def test_a_baseline_that_does_not_apply_is_skipped_with_its_reason(splits, tmp_path):
    plain = LetorSplits(
        name="plain",
        train=LetorData.build(splits.train.X, splits.train.y, qid=splits.train.qid),
        vali=LetorData.build(splits.vali.X, splits.vali.y, qid=splits.vali.qid),
        test=LetorData.build(splits.test.X, splits.test.y, qid=splits.test.qid),
    )
    rd = pipeline.run_benchmark(_config(models=("als", "random"), seeds=(0,)), out_dir=tmp_path,
                                progress=False, splits=plain)
    status = json.loads((rd / "status" / "als-seed0.json").read_text())
    assert status["status"] == "skipped"
    assert "user and item ids" in status["reason"]
    assert set(pd.read_csv(rd / "metrics.csv").model) == {"random"}
    assert json.loads((rd / "manifest.json").read_text())["finished"]


# --- resume ----------------------------------------------------------------------------------------


def test_an_interrupted_run_resumes_where_it_stopped_and_loses_nothing(splits, tmp_path, monkeypatch, run_dir):
    real = pipeline.run_model
    calls: list[tuple[str, int]] = []

    def failing(model, *args, seed, **kwargs):
        if len(calls) == 1:
            raise RuntimeError("power cut")
        calls.append((model, seed))
        return real(model, *args, seed=seed, **kwargs)

    monkeypatch.setattr(pipeline, "run_model", failing)
    with pytest.raises(RuntimeError, match="power cut"):
        pipeline.run_benchmark(_config(), out_dir=tmp_path, progress=False, splits=splits)
    (partial,) = (tmp_path / "runs").iterdir()
    assert [p.name for p in (partial / "status").iterdir()] == ["lightgbm-lambdarank-seed0.json"]
    assert json.loads((partial / "manifest.json").read_text())["finished"] is None
    assert set(pd.read_csv(partial / "metrics.csv").model) == {"lightgbm-lambdarank"}

    resumed_calls: list[tuple[str, int]] = []

    def counting(model, *args, seed, **kwargs):
        resumed_calls.append((model, seed))
        return real(model, *args, seed=seed, **kwargs)

    monkeypatch.setattr(pipeline, "run_model", counting)
    again = pipeline.run_benchmark(_config(), out_dir=tmp_path, resume=True, progress=False, splits=splits)
    assert again == partial
    assert ("lightgbm-lambdarank", 0) not in resumed_calls
    assert len(resumed_calls) == 7
    manifest = json.loads((again / "manifest.json").read_text())
    assert manifest["finished"]
    assert len(manifest["resumed"]) == 1
    # the resumed run equals an uninterrupted run of the same config, number for number
    for name in ("metrics.csv", "per_query.parquet", "scores.parquet", "evallog.csv"):
        a = layout.read_table(again / name)
        b = layout.read_table(run_dir / name)
        pd.testing.assert_frame_equal(_sorted(a), _sorted(b), check_dtype=False)


def test_a_pair_interrupted_between_its_tables_and_its_status_is_redone_without_duplicates(
        splits, tmp_path, monkeypatch):
    real = layout.write_status
    config = _config(models=("random",), seeds=(0, 1))

    def crash(run_dir, model, seed, body, *, finished):
        if seed == 1:
            raise KeyboardInterrupt
        real(run_dir, model, seed, body, finished=finished)

    monkeypatch.setattr(layout, "write_status", crash)
    with pytest.raises(KeyboardInterrupt):
        pipeline.run_benchmark(config, out_dir=tmp_path, progress=False, splits=splits)
    monkeypatch.setattr(layout, "write_status", real)
    rd = pipeline.run_benchmark(config, out_dir=tmp_path, resume=True, progress=False, splits=splits)
    metrics = pd.read_csv(rd / "metrics.csv")
    assert not metrics.duplicated(["model", "seed", "split", "metric", "profile"]).any()
    assert sorted(set(metrics.seed)) == [0, 1]


def test_resuming_a_run_of_another_config_is_refused(splits, tmp_path, run_dir):
    with pytest.raises(ConfigError, match="config differs"):
        pipeline.run_benchmark(_config(seeds=(5,)), resume=run_dir, progress=False,
                               splits=splits)


# --- config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [{"early_stopping_split": "test"}, {"select_on": "test"}, {"selection_split": "test"},
     {"run": {"early_stopping_split": "test"}}],
)
def test_a_config_that_selects_on_test_is_refused(doc):
    with pytest.raises(ConfigError, match="validation split only"):
        RunConfig.from_dict(doc)


def test_unknown_config_keys_and_models_list_the_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown config key.*modle.*valid:.*models"):
        RunConfig.from_dict({"modle": ["random"]})
    with pytest.raises(ConfigError, match=r"unknown model 'lightgbm-dart'; did you mean 'lightgbm'\? valid: lightgbm-lambdarank"):
        RunConfig.from_dict({"models": ["lightgbm-dart"]})
    # a baseline's table: said to be no GBDT's, where its parameters go (round 12), not a list
    # of the GBDT keys
    with pytest.raises(ConfigError, match=r"'random' is not a LightGBM, XGBoost or CatBoost "
                                          r"model; its parameters are not these"):
        RunConfig.from_dict({"model_params": {"random": {"depth": 3}}})


def test_config_round_trips_through_toml():
    cfg = RunConfig.from_dict({
        "dataset": "ohsumed", "models": "lightgbm,baselines", "seeds": "0-2",
        "metrics": ["ndcg@1,5", "mrr"], "params": {"n_trees": 50, "xgboost": {"max_cat_to_onehot": 2}},
        "model_params": {"xgboost-ndcg": {"l2": 1.0}}, "als": {"factors": 8},
    })
    assert cfg.models == ("lightgbm-lambdarank", "popularity", "random", "als")
    assert cfg.seeds == (0, 1, 2)
    assert cfg.metrics == ("ndcg@1", "ndcg@5", "mrr")
    from bench.data.toml import loads

    again = RunConfig.from_dict(loads(cfg.to_toml()))
    assert again == cfg
    assert again.config_hash() == cfg.config_hash()
    assert again.params_for("xgboost-ndcg", 3).l2 == 1.0
    assert again.params_for("xgboost-ndcg", 3).seed == 3


def test_quick_caps_trees_leaves_and_patience_for_every_model():
    cfg = RunConfig(quick=True, model_params={"xgboost-ndcg": {"n_trees": 500}}).resolved()
    p = cfg.params_for("xgboost-ndcg", 0)
    assert (p.n_trees, p.num_leaves, p.early_stopping_rounds) == (20, 15, 5)
    assert cfg.params.n_trees == 20


def test_seed_lists_and_ranges():
    assert parse_seeds("0,1,2") == (0, 1, 2)
    assert parse_seeds("3-5") == (3, 4, 5)
    assert parse_seeds([7]) == (7,)
    with pytest.raises(ConfigError, match="repeat"):
        parse_seeds("1,1")


def test_shipped_configs_load_and_name_the_published_table():
    from bench.benchmark.config import CONFIG_DIR
    from bench.report.published import PUBLISHED, published_for

    names = sorted(p.stem for p in CONFIG_DIR.glob("*.toml"))
    assert {"experiments_mslr30k", "experiments_yahoo"} <= set(names)
    for name in names:
        cfg = RunConfig.load(CONFIG_DIR / f"{name}.toml")
        if cfg.published:
            assert cfg.published in PUBLISHED
            assert published_for(cfg.dataset), cfg.dataset
    mslr = RunConfig.load(CONFIG_DIR / "experiments_mslr30k.toml")
    p = mslr.params_for("lightgbm-lambdarank", 0)
    assert (p.n_trees, p.learning_rate, p.num_leaves, p.min_data_in_leaf, p.min_child_weight) == (
        500, 0.1, 255, 0, 100.0)
    lgb_row = next(r for r in published_for("mslr-web30k") if r["model"] == "lightgbm-lambdarank")
    assert lgb_row["metrics"]["ndcg@10"] == 0.524252


# --- command line ----------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from bench.commands import run as run_cmd

    parser = argparse.ArgumentParser(prog="ltrbench")
    run_cmd.register(parser.add_subparsers(dest="command"))
    return parser


def test_ltrbench_run_on_a_letor_folder_prints_the_json_summary(splits, tmp_path, capsys):
    pytest.importorskip("bench.datasets.resolve")
    folder = tmp_path / "toyletor"
    for name, data in splits.splits().items():
        write_svmlight(data, folder / f"{name}.txt")
    args = _parser().parse_args([
        "run", "--dataset", str(folder), "--models", "lightgbm,random", "--seeds", "0", "--quick",
        "--out", str(tmp_path / "results"), "--format", "json", "--no-crosscheck", "--threads", "1",
    ])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"run_id", "run_dir", "dataset", "models", "seeds", "metrics", "timings",
                        "status", "crosscheck"}
    assert doc["models"] == ["lightgbm-lambdarank", "random"]
    assert doc["dataset"] == "toyletor"
    entry = doc["metrics"]["lightgbm-lambdarank"]["test"]["ndcg@10"]
    assert set(entry) == {"mean", "std", "per_seed"}
    assert entry["std"] is None
    assert Path(doc["run_dir"]).is_dir()


def test_ltrbench_run_refuses_a_config_that_selects_on_test(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('dataset = "synthetic"\nearly_stopping_split = "test"\n')
    args = _parser().parse_args(["run", "--config", str(cfg)])
    with pytest.raises(ConfigError, match="validation split only"):
        args.func(args)


# --- permute check ---------------------------------------------------------------------------------


def test_permute_check_moves_library_metrics_on_ties_but_never_the_reference(splits, tmp_path):
    cfg = _config(models=("lightgbm-lambdarank", "popularity"), seeds=(0,), permute_check=True)
    rd = pipeline.run_benchmark(cfg, out_dir=tmp_path, progress=False, splits=splits)
    frame = pd.read_csv(rd / "permute.csv")
    assert set(frame.evaluator) == {"lightgbm", "xgboost", "reference"}
    assert (frame[frame.evaluator == "reference"].delta == 0.0).all()
    pop = frame[frame.model == "popularity"]
    assert (pop.tied_rows > 0.3).all()  # 25 items over 10-row queries: many equal counts
    assert (pop[pop.evaluator != "reference"].delta != 0).any()


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(1, 9), min_size=1, max_size=12), seed=st.integers(0, 10_000))
def test_permutation_within_queries_keeps_every_row_in_its_query(sizes, seed):
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    perm = permutation_within_queries(offsets, seed)
    group = np.repeat(np.arange(len(sizes)), sizes)
    assert sorted(perm.tolist()) == list(range(offsets[-1]))
    assert np.array_equal(group[perm], group)


def test_tied_fraction_by_hand():
    # query 1: 1.0, 1.0, 2.0 (two tied); query 2: 1.0, 3.0 (none; 1.0 ties only across queries)
    assert tied_fraction(np.array([1.0, 1.0, 2.0, 1.0, 3.0]), np.array([0, 3, 5])) == pytest.approx(2 / 5)


# --- tune -------------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(n=st.integers(2, 60), k=st.integers(2, 6), seed=st.integers(0, 1000))
def test_query_folds_hold_out_every_query_exactly_once_and_never_split_one(n, k, seed):
    if n < k:
        with pytest.raises(ConfigError):
            query_folds(n, k, seed)
        return
    folds = query_folds(n, k, seed)
    held = np.concatenate([va for _, va in folds])
    assert sorted(held.tolist()) == list(range(n))
    for tr, va in folds:
        assert not set(tr) & set(va)
        assert len(tr) + len(va) == n
    sizes = [len(va) for _, va in folds]
    assert max(sizes) - min(sizes) <= 1


def _tune_plan(tmp_path, models=("lightgbm-lambdarank",), **request):
    from bench.benchmark.tune_run import TuneRequest, plan_tune

    config = RunConfig(dataset="synthetic", models=models, params=SMALL)
    return plan_tune(TuneRequest(out=str(tmp_path / "res"), **request), lambda: config)


def test_tune_selects_on_held_out_folds_of_the_training_split(splits, tmp_path):
    from bench.benchmark.tune_run import tune_loaded

    plan = _tune_plan(tmp_path, grid="num_leaves=3,7;learning_rate=0.1", cv="3")
    outcome = tune_loaded(plan, splits)
    table = pd.read_csv(outcome.folder / "trials.csv")
    assert len(table) == 2
    assert sorted(json.loads(p)["num_leaves"] for p in table["params"]) == [3, 7]
    entry = outcome.summary["models"]["lightgbm-lambdarank"]
    assert entry["best_params"] in ({"num_leaves": 3, "learning_rate": 0.1},
                                    {"num_leaves": 7, "learning_rate": 0.1})
    assert entry["best_value"] == table["value"].max()
    assert outcome.summary["scored_on"] == "3 query folds of train"
    with pytest.raises(ConfigError, match="never test"):
        tuning_data(splits.train, splits.vali, "test")


def test_tune_reports_each_trial_as_it_ends(splits, tmp_path):
    from bench.benchmark.tune_run import tune_loaded

    seen: list[tuple[str, int, int]] = []
    tune_loaded(_tune_plan(tmp_path, grid="num_leaves=3,7"), splits,
                lambda text, done, total: seen.append((text, done, total)))
    # the start, then each of the 2 trials when it ends
    assert [(d, t) for _, d, t in seen] == [(0, 2), (1, 2), (2, 2)]
    assert seen[0][0] == "lightgbm-lambdarank: starting"
    assert seen[2][0].startswith("lightgbm-lambdarank: trial 1 complete")


def test_tune_refuses_unknown_parameters_and_baselines(tmp_path):
    with pytest.raises(ConfigError, match="cannot tune 'depth'"):
        parse_space("depth=3")
    with pytest.raises(ConfigError, match="only GBDT models"):
        _tune_plan(tmp_path, models=("random",), grid="n_trees=5")


def test_ltrbench_tune_writes_a_runnable_best_config(splits, tmp_path, capsys):
    pytest.importorskip("bench.datasets.resolve")
    from bench.commands import tune as tune_cmd

    folder = tmp_path / "toyletor"
    for name, data in splits.splits().items():
        write_svmlight(data, folder / f"{name}.txt")
    parser = argparse.ArgumentParser()
    tune_cmd.register(parser.add_subparsers())
    args = parser.parse_args([
        "tune", "--dataset", str(folder), "--model", "xgboost-ndcg", "--grid",
        "num_leaves=3,5;learning_rate=0.1,0.3", "--sampler", "random", "--budget-trials", "3",
        "--cv", "2", "--quick", "--threads", "1", "--out", str(tmp_path / "results"),
        "--format", "json",
    ])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)["models"]["xgboost-ndcg"]
    assert doc["trials_run"] == 3
    best = RunConfig.load(doc["best_config"])
    assert best.models == ("xgboost-ndcg",)
    p = best.params_for("xgboost-ndcg", 0)
    assert (p.num_leaves, p.learning_rate) == (doc["best_params"]["num_leaves"], doc["best_params"]["learning_rate"])


def test_every_run_ends_with_a_clean_cross_check_on_lightgbm_example_data(shared_data, tmp_path):
    pytest.importorskip("bench.crosscheck")
    pytest.importorskip("bench.datasets.resolve")
    cfg = RunConfig(dataset="lightgbm-lambdarank", data_dir=str(shared_data),
                    models=("lightgbm-lambdarank", "xgboost-ndcg"), seeds=(0,), quick=True)
    rd = pipeline.run_benchmark(cfg, out_dir=tmp_path, progress=False)
    record = json.loads((rd / "manifest.json").read_text())["crosscheck"]
    assert record["ok"] is True, record["errors"]
    assert record["reasons"]["blank_query"] is not None  # vali has a blank query
    assert Path(record["files"]["md"]).is_file()
    assert Path(record["files"]["md"]).parent == tmp_path / "lightgbm-lambdarank"


# --- timing ----------------------------------------------------------------------------------------


def test_isolated_training_gives_the_same_numbers_as_in_process(splits, tmp_path, run_dir):
    config = _config(models=("lightgbm-lambdarank", "xgboost-ndcg", "random"), seeds=(0,),
                     timing="isolated")
    rd = pipeline.run_benchmark(config, out_dir=tmp_path, progress=False, splits=splits)
    assert not (rd / ".isolated").exists()
    scores, ref = layout.read_table(rd / "scores.parquet"), layout.read_table(run_dir / "scores.parquet")
    ref = ref[ref.model.isin(config.models) & (ref.seed == 0)]
    pd.testing.assert_frame_equal(_sorted(scores), _sorted(ref), check_dtype=False)
    timings = pd.read_csv(rd / "timings.csv")
    assert set(timings.timing) == {"isolated"}
    assert json.loads((rd / "manifest.json").read_text())["timing"]["mode"] == "isolated"


def test_timing_repeats_report_the_median_and_the_range(splits, tmp_path):
    config = _config(models=("lightgbm-lambdarank",), seeds=(0,), timing_repeats=3)
    rd = pipeline.run_benchmark(config, out_dir=tmp_path, progress=False, splits=splits)
    (row,) = pd.read_csv(rd / "timings.csv").itertuples()
    times = [float(x) for x in row.fit_s_repeats.split(";")]
    assert row.repeats == 3
    assert len(times) == 3
    assert row.fit_s == pytest.approx(sorted(times)[1], abs=1e-6)
    assert (row.fit_s_min, row.fit_s_max) == (pytest.approx(min(times), abs=1e-6),
                                              pytest.approx(max(times), abs=1e-6))
    assert row.fit_cpu_s > 0


@pytest.mark.parametrize("bad", [{"timing": "sometimes"}, {"timing_repeats": 0}])
def test_a_bad_timing_setting_is_refused_by_the_config(bad):
    with pytest.raises(ConfigError, match="timing"):
        _config(**bad)
