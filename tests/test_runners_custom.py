"""A user's ranker as a row (``bench.runners.custom``): from a TOML config through ``ltrbench run``
and from ``bench.benchmark.run``; its numbers are the reference evaluator's on predictions made
here from the same class and seed; the scikit-learn rankers of the three libraries work as they
are and give what calling them directly gives; bad definitions are clear ConfigErrors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from custom_rankers import FailingRanker, LinearRanker, make_linear

from bench.benchmark import RunResult, run
from bench.benchmark.config import RunConfig
from bench.benchmark.pipeline import run_benchmark
from bench.cli import main
from bench.data.groups import group_index
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import write_svmlight
from bench.errors import ConfigError
from bench.metrics import evaluate
from bench.runners.custom import CustomModelFailure, custom_model, train_custom
from bench.runs import layout

REPO = Path(__file__).resolve().parents[1]


def _part(n_queries: int, per: int, seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 5))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=n), [0.3, 1.2])
    return LetorData.build(X, y.astype(float), qid=np.repeat(np.arange(n_queries) + 100 * seed, per),
                           source=f"part{seed}")


@pytest.fixture(scope="module")
def splits() -> LetorSplits:
    return LetorSplits(name="toy", train=_part(30, 10, 1), vali=_part(12, 10, 2),
                       test=_part(12, 10, 3), inputs={})


def _test_metric(run_dir: Path, model: str, seed: int, metric: str = "ndcg@10") -> float:
    m = pd.read_csv(run_dir / "metrics.csv")
    sel = m[(m["model"] == model) & (m["seed"] == seed) & (m["split"] == "test")
            & (m["metric"] == metric) & (m["profile"] == "ltrbench")]
    assert len(sel) == 1
    return float(sel["value"].iloc[0])


def _reference(test: LetorData, scores: np.ndarray, metric: str = "ndcg@10") -> float:
    return float(evaluate(test.y, scores, group=test.group_sizes, metrics=metric).metrics[metric])


def _linear_scores(splits: LetorSplits, alpha: float, seed: int) -> np.ndarray:
    tr = splits.train
    return LinearRanker(alpha=alpha, seed=seed).fit(tr.X, tr.y, group=tr.group_sizes).predict(
        splits.test.X)


# --- from a TOML config, through the command line -----------------------------------------------


def test_a_config_runs_a_custom_ranker_through_ltrbench_run_and_scores_it_with_the_reference(
        splits, tmp_path, capsys):
    folder = tmp_path / "toyletor"
    for name, data in splits.splits().items():
        write_svmlight(data, folder / f"{name}.txt")
    config = tmp_path / "mine.toml"
    config.write_text(f"""
dataset = "{folder}"
models = ["lightgbm-lambdarank"]
seeds = [0, 1]
quick = true

[params]
n_threads = 1

[custom_models.mine]
factory = "custom_rankers:LinearRanker"
params = {{ alpha = 0.5 }}
""", encoding="utf-8")
    out = tmp_path / "results"
    # --models adds the custom model to the config's list (a custom name is a model name).
    code = main(["run", "--config", str(config), "--models", "lightgbm,mine", "--out", str(out),
                 "--format", "json"])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert doc["models"] == ["lightgbm-lambdarank", "mine"]
    run_dir = Path(doc["run_dir"])
    loaded = RunResult(run_dir)
    test = splits.test  # the folder holds these splits, written above
    for seed in (0, 1):
        expected = _reference(test, _linear_scores(splits, 0.5, seed))
        assert _test_metric(run_dir, "mine", seed) == pytest.approx(expected, abs=1e-12)
    # seeds give different models (the ranker fits a seeded subsample): the check can fail
    assert _test_metric(run_dir, "mine", 0) != _test_metric(run_dir, "mine", 1)
    metrics = pd.read_csv(run_dir / "metrics.csv")
    assert set(metrics[metrics["model"] == "mine"]["library"]) == {"custom"}
    status = layout.read_status(run_dir)
    assert status["mine-seed0"]["library"] == "custom"
    assert status["mine-seed1"]["library_params"] == {
        "factory": "custom_rankers:LinearRanker", "params": {"alpha": 0.5}, "seed": 1}
    timings = pd.read_csv(run_dir / "timings.csv")
    assert (timings[timings["model"] == "mine"]["fit_s"] > 0).all()
    # the leaderboard has the row; the cross-check passes and says why the model is not checked
    assert "mine" in loaded.leaderboard().index
    cc = loaded.crosscheck
    assert cc is not None
    assert cc["ok"] is True
    assert cc["not_applicable"]["mine"].startswith("not applicable: user model")
    assert "mine: not applicable: user model" in Path(cc["files"]["md"]).read_text(encoding="utf-8")


# --- from Python -------------------------------------------------------------------------------


def test_the_python_api_takes_a_class_and_a_factory_function_and_passes_vali_as_eval_set(
        splits, tmp_path):
    LinearRanker.calls.clear()
    result = run("toy", models=["mine", "fn"], seeds=[2], quick=True, splits=splits,
                 out_dir=tmp_path, params={"n_threads": 1},
                 custom_models={"mine": LinearRanker,
                                "fn": {"factory": make_linear, "params": {"alpha": 3.0}}})
    calls = list(LinearRanker.calls)  # the run's fits (the test's own fits come below)
    assert _test_metric(result.run_dir, "mine", 2) == pytest.approx(
        _reference(splits.test, _linear_scores(splits, 1.0, 2)), abs=1e-12)
    assert _test_metric(result.run_dir, "fn", 2) == pytest.approx(
        _reference(splits.test, _linear_scores(splits, 3.0, 2)), abs=1e-12)
    # what fit received: the training split with its group sizes, the validation split as eval set
    assert len(calls) == 2
    for call in calls:
        assert call["seed"] == 2
        assert call["X"] == splits.train.X.shape
        np.testing.assert_array_equal(call["group"], splits.train.group_sizes)
        assert call["eval_X"] == splits.vali.X.shape
        np.testing.assert_array_equal(call["eval_y"], splits.vali.y)
        np.testing.assert_array_equal(call["eval_group"], splits.vali.group_sizes)
    # the run's config names the factories, reloads, and hashes the same
    text = (result.run_dir / "config.toml").read_text(encoding="utf-8")
    assert 'factory = "custom_rankers:LinearRanker"' in text
    assert 'factory = "custom_rankers:make_linear"' in text
    assert result.config.config_hash() == result.manifest["config_hash"]


def test_lgbmranker_through_the_protocol_gives_the_test_ndcg_of_calling_it_directly(splits, tmp_path):
    import lightgbm as lgb

    params = {"n_estimators": 15, "num_leaves": 7, "min_child_samples": 5, "subsample": 0.8,
              "subsample_freq": 1, "n_jobs": 1, "verbose": -1}
    result = run("toy", models=["lgbm"], seeds=[3], splits=splits, out_dir=tmp_path,
                 custom_models={"lgbm": {"factory": "lightgbm:LGBMRanker", "params": params}})
    tr = splits.train
    direct = lgb.LGBMRanker(**params, random_state=3).fit(tr.X, tr.y, group=tr.group_sizes)
    expected = _reference(splits.test, direct.predict(splits.test.X))
    assert _test_metric(result.run_dir, "lgbm", 3) == pytest.approx(expected, abs=1e-12)
    assert result.timings.set_index("model").loc["lgbm", "fit_s"] > 0


def test_xgbranker_gets_the_seed_through_set_params_and_scores_as_called_directly(splits):
    import xgboost as xgb

    params = {"n_estimators": 8, "max_depth": 3, "subsample": 0.8, "n_jobs": 1}
    model = custom_model("xgb", {"factory": "xgboost:XGBRanker", "params": params})
    result = train_custom(model, splits, seed=5)
    assert result.library_params["random_state"] == 5
    tr = splits.train
    direct = xgb.XGBRanker(**params, random_state=5).fit(tr.X, tr.y, group=tr.group_sizes)
    np.testing.assert_array_equal(result.scores["test"],
                                  direct.predict(splits.test.X).astype(np.float64))


def test_catboostranker_gets_per_row_group_ids_and_a_validation_pool(splits):
    from catboost import CatBoostRanker, Pool

    params = {"iterations": 8, "depth": 3, "verbose": False, "thread_count": 1,
              "allow_writing_files": False}
    model = custom_model("cb", {"factory": "catboost:CatBoostRanker", "params": params})
    result = train_custom(model, splits, seed=4)
    assert result.library_params["random_state"] == 4
    tr, va = splits.train, splits.vali
    # with an eval set CatBoost keeps its best iteration on it (use_best_model): same call here
    direct = CatBoostRanker(**params, random_state=4).fit(
        tr.X, tr.y, group_id=group_index(tr.offsets),
        eval_set=Pool(va.X, label=va.y, group_id=group_index(va.offsets)))
    np.testing.assert_array_equal(result.scores["test"], direct.predict(splits.test.X))


def test_a_plain_fit_with_group_only_and_no_seed_works(splits):
    result = train_custom(custom_model("plain", "custom_rankers:PlainRanker"), splits, seed=0)
    np.testing.assert_array_equal(result.scores["test"], splits.test.X[:, 0].astype(np.float64))
    assert result.booster.n_groups == splits.train.n_queries
    assert result.library_params == {"factory": "custom_rankers:PlainRanker", "params": {}}


# --- failures ----------------------------------------------------------------------------------


def test_a_failing_fit_names_the_model_keeps_the_other_results_and_resumes(splits, tmp_path,
                                                                          monkeypatch):
    config = RunConfig(dataset="toy", models=("random", "broken", "mine"), seeds=(0,), quick=True,
                       crosscheck=False,
                       custom_models={"broken": "custom_rankers:FailingRanker",
                                      "mine": "custom_rankers:LinearRanker"})
    with pytest.raises(CustomModelFailure,
                       match=r"'broken' \(\[custom_models.broken\] factory "
                             r"'custom_rankers:FailingRanker'\), seed 0: fit "
                             r"raised ValueError: the user's fit broke") as caught:
        run_benchmark(config, out_dir=tmp_path, progress=False, splits=splits)
    run_dir = caught.value.run_dir
    assert set(layout.read_status(run_dir)) == {"random-seed0", "mine-seed0"}
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["failures"]) == ["broken-seed0"]
    assert manifest["finished"] is None
    # the user fixes the class; resuming trains only the failed pair
    monkeypatch.setattr(FailingRanker, "fit", LinearRanker.fit)
    again = run_benchmark(config, out_dir=tmp_path, progress=False, splits=splits, resume=run_dir)
    assert again == run_dir
    assert set(layout.read_status(run_dir)) == {"random-seed0", "mine-seed0", "broken-seed0"}
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert "failures" not in manifest
    assert manifest["finished"] is not None


@pytest.mark.parametrize(("spec", "message"), [
    ("custom_rankers.LinearRanker", r"expected \"package.module:attribute\""),
    ("no_such_module_xyz:Thing", r"cannot import module 'no_such_module_xyz' \(ModuleNotFoundError"),
    ("custom_rankers:Nope", r"custom_rankers has no attribute 'Nope'"),
    ("custom_rankers:NOT_CALLABLE", r"is a int, not a class or function"),
    ({"model": "custom_rankers:LinearRanker"}, r"unknown key \[custom_models.mine\] model; valid: factory, params"),
    ({"factory": "custom_rankers:LinearRanker", "params": {"seed": 1}}, r"the seed is the run's"),
    ({"factory": "custom_rankers:LinearRanker", "params": {"alpha": None}}, r"params.alpha"),
])
def test_a_bad_custom_model_definition_is_a_config_error_naming_the_model(spec, message):
    with pytest.raises(ConfigError, match=message) as caught:
        RunConfig.from_dict({"models": ["mine"], "custom_models": {"mine": spec}})
    assert "mine" in str(caught.value)


@pytest.mark.parametrize(("factory", "message"), [
    ("custom_rankers:NoPredict", r"returned NoPredict, which has no predict method"),
    ("custom_rankers:NoGroups", r"NoGroups.fit takes no group"),
])
def test_a_factory_that_builds_no_usable_ranker_is_refused_before_any_data(factory, message,
                                                                          tmp_path):
    def no_loading(*args, **kwargs):
        raise AssertionError("data were loaded")

    config = RunConfig(dataset="toy", models=("mine",), custom_models={"mine": factory})
    with pytest.raises(ConfigError, match=message) as caught:
        run_benchmark(config, out_dir=tmp_path, progress=False, loader=no_loading)
    assert f"custom model 'mine' ([custom_models.mine] factory '{factory}')" in str(caught.value)


@pytest.mark.parametrize(("name", "message"), [
    ("lightgbm-lambdarank", "is a built-in model or alias"),
    ("xgboost", "is a built-in model or alias"),
    ("my model", "use ASCII letters and digits"),
    ("café", "use ASCII letters and digits"),
])
def test_a_custom_name_that_collides_with_a_built_in_is_refused(name, message):
    with pytest.raises(ConfigError, match=message):
        RunConfig.from_dict({"custom_models": {name: "custom_rankers:LinearRanker"}})


def test_options_that_do_not_apply_to_custom_models_are_refused():
    mine = {"mine": "custom_rankers:LinearRanker"}
    with pytest.raises(ConfigError, match=r"\[custom_models.mine\] params"):
        RunConfig(models=("mine",), custom_models=mine, model_params={"mine": {"n_trees": 3}})
    with pytest.raises(ConfigError, match="timing 'isolated' is not available"):
        RunConfig(models=("mine",), custom_models=mine, timing="isolated")
    with pytest.raises(ConfigError, match="unknown model 'other'"):
        RunConfig(models=("other",), custom_models=mine)


def test_a_class_that_cannot_be_named_by_module_and_attribute_is_refused():
    class Local(LinearRanker):
        pass

    with pytest.raises(ConfigError, match="define the class or factory at the top level"):
        run("toy", models=["mine"], custom_models={"mine": Local})


def test_the_cli_exits_2_on_a_bad_factory_and_names_the_model(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text('models = ["mine"]\n[custom_models.mine]\nfactory = "no_such_module_xyz:R"\n',
                      encoding="utf-8")
    assert main(["run", "--config", str(config), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: custom model 'mine' ([custom_models.mine] factory 'no_such_module_xyz:R')" in err
    assert "Traceback" not in err


# --- the config hash ---------------------------------------------------------------------------


def test_configs_without_custom_models_keep_the_hashes_of_the_committed_runs():
    runs = sorted((REPO / "results" / "runs").glob("*/config.toml"))
    assert runs
    for path in runs:
        recorded = json.loads((path.parent / "manifest.json").read_text(encoding="utf-8"))
        assert RunConfig.load(path).config_hash() == recorded["config_hash"], path.parent.name


def test_the_factory_and_its_params_are_part_of_the_config_hash():
    def config(factory: str, params: dict[str, object]) -> RunConfig:
        return RunConfig.from_dict({"models": ["mine"], "custom_models": {
            "mine": {"factory": factory, "params": params}}})

    base = config("custom_rankers:LinearRanker", {"alpha": 1.0})
    assert base.config_hash() == config("custom_rankers:LinearRanker", {"alpha": 1.0}).config_hash()
    assert base.config_hash() != config("custom_rankers:LinearRanker", {"alpha": 2.0}).config_hash()
    assert base.config_hash() != config("custom_rankers:make_linear", {"alpha": 1.0}).config_hash()
    from bench.data import toml as tomlio

    again = RunConfig.from_dict(tomlio.loads(base.to_toml()))
    assert again.config_hash() == base.config_hash()
    assert again.custom_models == base.custom_models


def test_the_readme_own_ranker_example_runs_as_a_script(tmp_path: Path) -> None:
    import re
    import runpy

    readme = Path(__file__).resolve().parents[1] / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if "class RidgeRanker" in b]
    script = tmp_path / "own_ranker.py"
    # What the test reads runs inside the script too: the run's config names the class as
    # '__main__:RidgeRanker', which only the script's own __main__ holds.
    script.write_text(block + "\nframe = result.metrics\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:  # as a script: its class lives in __main__, which the run's config.toml can name
        names = runpy.run_path(str(script), run_name="__main__")
    finally:
        os.chdir(cwd)
    frame = names["frame"]
    ridge = frame[frame["model"] == "ridge"]
    assert set(ridge["library"]) == {"custom"}
    assert sorted(ridge["seed"].unique().tolist()) == [0, 1]
    assert set(frame["model"]) == {"lightgbm-lambdarank", "ridge"}
