"""Hostile run configurations, round 10 (issue 19, item 5: one schema for a TOML file, the
Python API and the command line), after rounds 7 to 9.

New here:

- **raw library keys matched as the libraries match them.** LightGBM keeps a key as written
  (``src/io/config.cpp`` ``KV2Map``: trimmed, never case-folded; ``Seed`` is an "Unknown
  parameter"), XGBoost and CatBoost are case-sensitive too; ltrbench folded the case, so
  ``[params.lightgbm] Seed = 5`` was refused as "ltrbench sets it itself" and
  ``[params.xgboost] ETA`` as "XGBoost's name for learning_rate" (neither library reads them).
  A key in another case now goes to the library's probe: "not a LightGBM parameter; did you
  mean 'seed'", XGBoost's "not used", CatBoost's "Unknown option".
- **raw keys that silently change what is trained (exit 0 before):** LightGBM's derived seeds
  (``bagging_seed``, ``feature_fraction_seed``, ``data_random_seed`` / ``data_seed``, ...: one
  set is the same for every run seed, so the seeds stop differing there; LightGBM
  docs/Parameters.rst ``seed``), ``bagging_freq`` / ``subsample_freq = 0`` (bagging off in a
  run that records ``subsample = 0.8``), CatBoost's ``metric_period = 5`` (its validation log
  holds rounds 0, 5, 10, ...: the best iteration read from it round by round was wrong, checked
  below against CatBoost itself), ``verbose = 5`` (a log printed on stdout), ``custom_loss``
  (CatBoost's synonym of ``custom_metric``, ``catboost/core.py`` ``_process_synonyms_groups``),
  ``allow_writing_files`` / ``save_snapshot`` (a snapshot file is resumed by the next fit).
- **a library's stack trace in the error line** (XGBoost ``tree_method = "exact"``).
- **one length rule, on the schema record** (:attr:`bench.data.toml.Spec.max_length`), not a
  check beside it at four sites.
- **tune's one seed:** ``tune --seeds`` is refused (tune has ``--seed``), and a config whose
  ``seeds`` differ from ``--seed`` is told which wins.

``python tests/test_hostile_round10_configs.py`` prints the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import refused
from test_hostile_config import Case
from test_hostile_round9_configs import problem

CAT = {"models": '["catboost-yetirank"]'}
XGB = {"models": '["xgboost-ndcg"]'}

CASES: list[Case] = [
    # ------------------------------------------------------------ case as the libraries read it
    Case("lightgbm-Seed-is-an-unknown-parameter", tables="[params.lightgbm]\nSeed = 5\n",
         words=("c.toml", "'Seed' is not a LightGBM parameter", "'seed'")),
    Case("lightgbm-Objective-is-an-unknown-parameter",
         tables='[params.lightgbm]\nObjective = "regression"\n',
         words=("c.toml", "'Objective' is not a LightGBM parameter", "'objective'")),
    Case("xgboost-ETA-is-not-used", top=XGB, tables="[params.xgboost]\nETA = 0.5\n",
         words=("c.toml", '"ETA"', "not used")),
    Case("xgboost-Seed-is-not-used", top=XGB, tables="[params.xgboost]\nSeed = 5\n",
         words=("c.toml", '"Seed"', "not used")),
    Case("catboost-Depth-is-an-unknown-option", top=CAT, tables="[params.catboost]\nDepth = 5\n",
         words=("c.toml", "Unknown option {Depth}")),
    Case("catboost-Random_Seed-is-an-unknown-option", top=CAT,
         tables="[params.catboost]\nRandom_Seed = 5\n",
         words=("c.toml", "Unknown option {Random_Seed}")),
    # ------------------------------------------------------------ silently another model before
    Case("lightgbm-bagging-seed", tables="[params.lightgbm]\nbagging_seed = 3\n",
         words=("c.toml", "lightgbm bagging_seed", "the run's seeds")),
    Case("lightgbm-bagging-fraction-seed-alias",
         tables="[params.lightgbm]\nbagging_fraction_seed = 3\n",
         words=("c.toml", "lightgbm bagging_fraction_seed", "the run's seeds")),
    Case("lightgbm-feature-fraction-seed", tables="[params.lightgbm]\nfeature_fraction_seed = 3\n",
         words=("c.toml", "lightgbm feature_fraction_seed", "the run's seeds")),
    Case("lightgbm-data-seed-alias", tables="[params.lightgbm]\ndata_seed = 3\n",
         words=("c.toml", "lightgbm data_seed", "the run's seeds")),
    Case("lightgbm-objective-seed-in-model-params",
         tables="[model_params.lightgbm-lambdarank.lightgbm]\nobjective_seed = 3\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] lightgbm objective_seed")),
    Case("lightgbm-bagging-freq-0", tables="[params.lightgbm]\nbagging_freq = 0\n",
         words=("c.toml", "lightgbm bagging_freq", "subsample")),
    Case("lightgbm-subsample-freq-alias", tables="[params.lightgbm]\nsubsample_freq = 0\n",
         words=("c.toml", "lightgbm subsample_freq", "subsample")),
    Case("catboost-metric-period", top=CAT, tables="[params.catboost]\nmetric_period = 5\n",
         words=("c.toml", "catboost metric_period", "every round")),
    Case("catboost-verbose-5", top=CAT, tables="[params.catboost]\nverbose = 5\n",
         words=("c.toml", "catboost verbose")),
    Case("catboost-custom-loss", top=CAT,
         tables='[params.catboost]\ncustom_loss = ["NDCG:top=3"]\n',
         words=("c.toml", "catboost custom_loss", "eval_at")),
    Case("catboost-allow-writing-files", top=CAT,
         tables="[params.catboost]\nallow_writing_files = true\n",
         words=("c.toml", "catboost allow_writing_files")),
    Case("catboost-save-snapshot", top=CAT, tables="[params.catboost]\nsave_snapshot = true\n",
         words=("c.toml", "catboost save_snapshot", "snapshot")),
    Case("xgboost-verbosity-3", top=XGB, tables="[params.xgboost]\nverbosity = 3\n",
         words=("c.toml", "xgboost verbosity", "--format json")),
    # ------------------------------------------------------------ one parameter given twice
    Case("lightgbm-alias-beside-its-main-name",
         tables="[params.lightgbm]\nextra_trees = true\nextra_tree = false\n",
         words=("c.toml", "extra_tree and extra_trees", "two names of one LightGBM parameter")),
    Case("lightgbm-alias-in-the-model-table-beside-the-main-name",
         tables="[params.lightgbm]\nextra_trees = true\n"
                "[model_params.lightgbm-lambdarank.lightgbm]\nextra_tree = false\n",
         words=("c.toml", "extra_tree and extra_trees")),
    Case("lightgbm-two-aliases-of-one-parameter",
         tables='[params.lightgbm]\nmc_method = "basic"\n'
                'monotone_constraining_method = "intermediate"\n',
         words=("c.toml", "two names of one LightGBM parameter (monotone_constraints_method)")),
    # ------------------------------------------------------------ --quick beside an option it caps
    Case("quick-option-beside-n-trees-100", args=("--quick", "--n-trees", "100"),
         words=("--n-trees 100", "quick", "20")),
    Case("quick-config-beside-n-trees-option", args=("--n-trees", "21"),
         words=("--n-trees 21", "quick", "20")),
    # ------------------------------------------------------------ a shared name a library lacks
    Case("catboost-model-l1", top=CAT, tables="[model_params.catboost-yetirank]\nl1 = 5.0\n",
         words=("c.toml", "[model_params.catboost-yetirank] l1", "no L1")),
    Case("catboost-model-min-split-gain", top=CAT,
         tables="[model_params.catboost-yetirank]\nmin_split_gain = 1.0\n",
         words=("c.toml", "[model_params.catboost-yetirank] min_split_gain")),
    Case("catboost-model-truncation-level", top=CAT,
         tables="[model_params.catboost-yetirank]\ntruncation_level = 5\n",
         words=("c.toml", "[model_params.catboost-yetirank] truncation_level")),
    Case("xgboost-model-min-data-in-leaf", top=XGB,
         tables="[model_params.xgboost-ndcg]\nmin_data_in_leaf = 50\n",
         words=("c.toml", "[model_params.xgboost-ndcg] min_data_in_leaf", "min_child_weight")),
    # ------------------------------------------------------------ numbers at the float limits
    Case("xgboost-learning-rate-5e-324", top=XGB, tables="[params]\nlearning_rate = 5e-324\n",
         words=("c.toml", "learning_rate", "float32")),
    Case("xgboost-learning-rate-1e-40", top=XGB, tables="[params]\nlearning_rate = 1e-40\n",
         words=("c.toml", "learning_rate", "float32")),
    # ------------------------------------------------------------ unicode look-alikes
    Case("name-with-a-no-break-space", top={"name": '"a\\u00a0b"'},
         words=("c.toml", "name", "no-break space")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round10(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


def test_a_library_refusal_is_one_line_without_its_native_stack_trace(tmp_path: Path) -> None:
    """XGBoost appends "Stack trace: [bt] (0) /.../libxgboost.so(+0x...)" to its error."""
    # round 11b: tree_method is ltrbench's own (refused before the probe), so XGBoost's own
    # refusal with its stack trace is asked for by another key
    case = Case("xgboost-update", top=XGB, tables='[params.xgboost]\nprocess_type = "update"\n',
                words=("c.toml", "xgboost", "process_type"))
    assert problem(case, tmp_path) is None
    from hostile_kit import cli

    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--out", "res")
    assert "Stack trace" not in res.err
    assert "[bt]" not in res.err


def test_a_library_log_asked_for_stays_off_the_json_document(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """``[params.lightgbm] verbosity = 1`` is the user's to ask; LightGBM's "[LightGBM] [Info]"
    lines went to standard output ahead of ``run --format json``'s document."""
    import json
    import os

    from test_hostile_config import SPLITS

    from bench import cli

    (tmp_path / "letor").mkdir()
    for split, data in SPLITS.items():
        (tmp_path / "letor" / f"{split}.txt").write_bytes(data)
    (tmp_path / "c.toml").write_text('dataset = "./letor"\nmodels = ["lightgbm-lambdarank"]\n'
                                     'seeds = [0]\nquick = true\ncrosscheck = false\n'
                                     '[params.lightgbm]\nverbosity = 1\n', encoding="utf-8")
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        status = cli.main(["run", "--config", "c.toml", "--format", "json", "--no-progress",
                           "--out", "res"])
    finally:
        os.chdir(old)
    out, err = capfd.readouterr()
    assert status == 0
    assert json.loads(out)["models"] == ["lightgbm-lambdarank"]
    assert "[LightGBM]" in err


def test_catboost_logs_every_metric_period_th_round_only() -> None:
    """Why ``metric_period`` is ltrbench's: CatBoost's validation log then holds one value per
    ``metric_period`` rounds (the golden: CatBoost itself), so the first maximum of the log is
    not a round number."""
    import numpy as np
    from catboost import CatBoost, Pool

    rng = np.random.default_rng(0)
    train = Pool(rng.random((60, 3)), rng.integers(0, 3, 60).astype(float),
                 group_id=np.repeat(np.arange(6), 10))
    vali = Pool(rng.random((30, 3)), rng.integers(0, 3, 30).astype(float),
                group_id=np.repeat(np.arange(3), 10))
    lengths = []
    for period in (1, 5):
        model = CatBoost({"loss_function": "YetiRank", "iterations": 12, "metric_period": period,
                          "verbose": False, "allow_writing_files": False, "thread_count": 1,
                          "eval_metric": "NDCG:top=10"})
        model.fit(train, eval_set=vali)
        lengths.append(len(next(iter(model.get_evals_result()["validation"].values()))))
    assert lengths == [12, 4]  # rounds 0, 5, 10 and the last, 11


def test_the_length_of_a_text_is_a_field_of_the_schema_record() -> None:
    """One mechanism: the record carries the limit and :meth:`Spec.check` applies it; every
    one-line text key of a run config carries :data:`MAX_TEXT`, the free ``description`` none."""
    from bench.benchmark.config_schema import MAX_TEXT, TOP_SPECS
    from bench.data.toml import Spec
    from bench.errors import ConfigError

    spec = Spec("k", str, max_length=3)
    assert spec.check("abc", "k") == "abc"
    with pytest.raises(ConfigError, match=r"^k: 4 characters \('abcd'\.\.\.\); expected at most 3$"):
        spec.check("abcd", "k")
    assert not spec.accepts("abcd")
    texts = {k: s.max_length for k, s in TOP_SPECS.items() if s.kind is str}
    assert texts.pop("description") is None
    assert set(texts.values()) == {MAX_TEXT}


def test_a_long_text_in_python_is_refused_by_the_same_record() -> None:
    from bench.benchmark.config import RunConfig
    from bench.errors import ConfigError

    for key in ("dataset", "profile", "timing", "scheduler"):
        with pytest.raises(ConfigError, match=rf"^{key}: 5,000 characters"):
            RunConfig(**{key: "x" * 5000})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^seeds: 5,000 characters"):
        RunConfig(seeds="1" * 5000)  # type: ignore[arg-type]


def test_tune_refuses_seeds_it_would_not_use(tmp_path: Path) -> None:
    res = tune(tmp_path, "--model", "lightgbm", "--grid", "num_leaves=3", "--seeds", "1,2")
    assert refused(res, "--seeds", "--seed") is None
    assert not (tmp_path / "res" / "tune").exists()


def _plan_warnings(tmp: Path, seeds: tuple[int, ...], seed: str) -> tuple[int, list[str]]:
    """The seed a tune is planned with and the warnings said (no data read, no fit)."""
    import warnings

    from bench.benchmark.config import RunConfig
    from bench.benchmark.tune_run import TuneRequest, plan_tune

    config = RunConfig(dataset="synthetic", models=("lightgbm-lambdarank",), seeds=seeds,
                       quick=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = plan_tune(TuneRequest(grid="num_leaves=3", seed=seed, out=str(tmp / "res")),
                         lambda: config)
    return plan.options.seed, [str(w.message) for w in caught]


def test_tune_says_its_seed_wins_over_the_configs_seeds(tmp_path: Path) -> None:
    seed, said = _plan_warnings(tmp_path, (7,), "3")
    assert seed == 3
    assert any("--seed 3" in w and "[7]" in w and "not used by tune" in w for w in said), said


def test_tune_with_the_default_seeds_or_its_own_seed_says_nothing(tmp_path: Path) -> None:
    for seeds, seed in (((0, 1, 2), "5"), ((3,), "3")):
        assert not any("not used by tune" in w for w in _plan_warnings(tmp_path, seeds, seed)[1])


@pytest.mark.parametrize(("space", "raw", "words"), [
    ('"lightgbm.bagging_seed" = {low = 1, high = 5}', (), "the run's seeds"),
    ('"lightgbm.extra_tree" = {choices = [true, false]}', (("extra_trees", True),),
     "two names of one LightGBM parameter"),
])
def test_a_search_space_meets_the_same_raw_key_rules(tmp_path: Path, space: str,
                                                     raw: tuple[tuple[str, object], ...],
                                                     words: str) -> None:
    """``tune --space``'s ``<library>.<key>`` goes through the one raw-key check too."""
    from bench.benchmark.config import RunConfig
    from bench.benchmark.tune_run import TuneRequest, plan_tune
    from bench.errors import ConfigError
    from bench.runners.params import Params

    (tmp_path / "space.toml").write_text(f"[lightgbm]\n{space}\n", encoding="utf-8")
    config = RunConfig(models=("lightgbm-lambdarank",), quick=True,
                       params=Params(raw=(("lightgbm", raw),) if raw else ()))
    with pytest.raises(ConfigError, match="search space of lightgbm-lambdarank") as info:
        plan_tune(TuneRequest(space_file=str(tmp_path / "space.toml"), out=str(tmp_path / "o")),
                  lambda: config)
    assert words in str(info.value)


@pytest.mark.parametrize(("models", "params", "said"), [
    (("catboost-yetirank",), {"l1": 5.0}, ["l1"]),
    (("catboost-yetirank",), {"min_split_gain": 1.0, "truncation_level": 5},
     ["min_split_gain", "truncation_level"]),
    (("xgboost-ndcg",), {"min_data_in_leaf": 50}, ["min_data_in_leaf"]),
    (("catboost-yetirank", "lightgbm-lambdarank"), {"l1": 5.0}, []),  # LightGBM uses it
    (("xgboost-ndcg",), {}, []),
])
def test_a_shared_parameter_no_model_of_the_run_has_is_said(
        models: tuple[str, ...], params: dict[str, object], said: list[str]) -> None:
    """``[params] l1 = 5`` in a CatBoost-only run trained without it, without a word."""
    from bench.benchmark.config import RunConfig

    config = RunConfig.from_dict({"models": list(models), "params": params})
    texts = config.unused()  # round 11: RunConfig.unused owns what the run warns about
    assert [t.split(":")[0] for t in texts] == [f"[params] {k}" for k in said]
    assert all("not used by this run's models" in t for t in texts)


def test_a_value_quick_mode_caps_in_the_same_file_is_said() -> None:
    """``quick = true`` beside ``[params] n_trees = 500`` trained 20 trees without a word."""
    from bench.benchmark.config import RunConfig

    config = RunConfig.from_dict({"models": ["lightgbm-lambdarank"], "quick": True,
                                  "params": {"n_trees": 500},
                                  "model_params": {"lightgbm-lambdarank": {"num_leaves": 63}}})
    assert RunConfig(quick=True).unused() == []  # the defaults: nothing said
    # round 11: one text for the quick caps (bench.benchmark.quick), as run --quick and tune say
    assert config.unused() == [
        "[params] n_trees = 500: quick mode (--quick, or quick = true in the config file) caps "
        "n_trees at 20; 20 is trained",
        "[model_params.lightgbm-lambdarank] num_leaves = 63: quick mode (--quick, or quick = "
        "true in the config file) caps num_leaves at 15; 15 is trained"]


if __name__ == "__main__":
    import tempfile

    failing = 0
    for case in CASES:
        with tempfile.TemporaryDirectory() as d:
            why = problem(case, Path(d))
        failing += why is not None
        print(f"{'FAIL' if why else 'ok  '} {case.name}: {why or ''}")
    print(f"{failing} of {len(CASES)} cases fail")


def test_tune_refuses_searching_a_parameter_the_config_fixes_for_that_model(
        tmp_path: Path) -> None:
    """``[model_params.lightgbm-lambdarank] num_leaves = 7`` beside ``--grid num_leaves=3,5``:
    each trial replaced the file's value without a word; refused naming both (no data read)."""
    from bench.benchmark.config import RunConfig
    from bench.benchmark.tune_run import TuneRequest, plan_tune
    from bench.errors import ConfigError

    fixed = RunConfig(dataset="synthetic", models=("lightgbm-lambdarank",), quick=True,
                      model_params={"lightgbm-lambdarank": {"num_leaves": 7}})
    with pytest.raises(ConfigError, match=r"searches num_leaves for lightgbm-lambdarank, which "
                                          r"the config fixes: \[model_params\.lightgbm-lambdarank\]"
                                          r" num_leaves = 7"):
        plan_tune(TuneRequest(grid="num_leaves=3,5", out=str(tmp_path / "a")), lambda: fixed)
    other = RunConfig(dataset="synthetic", models=("lightgbm-lambdarank",), quick=True,
                      model_params={"lightgbm-lambdarank": {"min_data_in_leaf": 5}})
    plan = plan_tune(TuneRequest(grid="num_leaves=3,5", out=str(tmp_path / "b")), lambda: other)
    assert plan.options.seed == 0  # guard: a fixed parameter that is not searched is kept
