"""A catalogue of hostile run configs (TOML files) and ``tune`` command lines, run through the real
command line (``bench.cli.main``).

Every case must end with exit status 2 and one line ``error: ...`` that names the config file
(for a file), the key (``[params] n_trees``, ``seeds``), and what was expected, before any data
are loaded or any model is fitted: a value of the wrong type is never coerced (``"false"`` is not
false, ``1.5`` and ``true`` are not integers), a number outside the range that the library
accepts is refused with that range, and an unknown key is refused with the closest valid name.
An exception escaping ``cli.main`` fails the test, and so does the word ``Traceback``.

The data folder is a five-row LETOR set; the base config trains one quick LightGBM model on it
(the cases below each change one key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench import cli

DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
#: Three distinct splits (a validation split equal to the test split is refused on its own).
SPLITS = {"train": DATA, "vali": DATA.replace(b"1:0.1", b"1:0.2"),
          "test": DATA.replace(b"1:0.9", b"1:0.7")}
BASE = {
    "dataset": '"./letor"',
    "models": '["lightgbm-lambdarank"]',
    "seeds": "[0]",
    "quick": "true",
    "crosscheck": "false",
    "cache": "false",
}


@dataclass(frozen=True)
class Case:
    """A config with ``top`` keys (raw TOML values) over :data:`BASE`, then ``tables`` (raw
    TOML text); or, with ``raw``, these bytes as the whole file. ``words`` must all be in the
    error line."""

    name: str
    top: dict[str, str] = field(default_factory=dict)
    tables: str = ""
    words: tuple[str, ...] = ()
    raw: bytes | None = None
    args: tuple[str, ...] = ()


def raw_case(name: str, library: str, line: str, *words: str,
             top: dict[str, str] | None = None) -> Case:
    """A ``[params.<library>]`` table of one ``key = value`` ``line`` (over ``top``), refused
    naming the file, ``<library> <key>`` and ``words``."""
    key = line.split("=", 1)[0].strip()
    return Case(name, top=top or {}, tables=f"[params.{library}]\n{line}\n",
                words=("c.toml", f"{library} {key}", *words))


def _text(case: Case) -> bytes:
    if case.raw is not None:
        return case.raw
    doc = {**BASE, **case.top}
    lines = [f"{k} = {v}" for k, v in doc.items() if v is not None]
    return ("\n".join(lines) + "\n" + case.tables).encode()


VALID = "".join(f"{k} = {v}\n" for k, v in BASE.items())

CONFIG_CASES: list[Case] = [
    # ------------------------------------------------------------- the list
    Case("n-trees-float", tables="[params]\nn_trees = 1.5\n",
         words=("c.toml", "[params] n_trees", "an integer", "1.5")),
    Case("n-trees-bool", tables="[params]\nn_trees = true\n",
         words=("c.toml", "[params] n_trees", "an integer", "true")),
    Case("n-trees-string", tables="[params]\nn_trees = \"100\"\n",
         words=("c.toml", "[params] n_trees", "an integer", "'100'")),
    Case("model-n-trees-float", tables="[model_params.lightgbm-lambdarank]\nn_trees = 1.5\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] n_trees", "an integer")),
    Case("min-data-in-leaf-1e12", tables="[params]\nmin_data_in_leaf = 1e12\n",
         words=("c.toml", "[params] min_data_in_leaf", "an integer")),
    Case("min-data-in-leaf-huge-int", tables="[params]\nmin_data_in_leaf = 1000000000000\n",
         words=("c.toml", "[params] min_data_in_leaf", "2147483647")),
    Case("subsample-1e-300", tables="[params]\nsubsample = 1e-300\n",
         words=("c.toml", "[params] subsample", "1e-300")),
    Case("data-dir-int", top={"data_dir": "5"}, words=("c.toml", "data_dir", "string")),
    Case("utf16-config", raw=VALID.encode("utf-16"), words=("c.toml", "UTF-16", "UTF-8")),
    Case("seeds-huge-string", top={"seeds": '"99999999999999999999"'},
         words=("c.toml", "seeds", "2147483647")),
    Case("quick-string-false", top={"quick": '"false"'},
         words=("c.toml", "quick", "true or false", "'false'")),
    Case("crosscheck-string-no", top={"crosscheck": '"no"'},
         words=("c.toml", "crosscheck", "true or false", "'no'")),
    Case("seeds-float", top={"seeds": "[1.5]"}, words=("c.toml", "seeds", "integer", "1.5")),
    Case("seeds-bool", top={"seeds": "[true]"}, words=("c.toml", "seeds", "integer", "true")),
    Case("eval-at-float", top={"eval_at": "[1.5]"},
         words=("c.toml", "eval_at", "integer", "1.5")),
    Case("learning-rate-inf", tables="[params]\nlearning_rate = inf\n",
         words=("c.toml", "[params] learning_rate", "inf")),
    # ------------------------------------------------------------- more of the same classes
    Case("learning-rate-nan", tables="[params]\nlearning_rate = nan\n",
         words=("c.toml", "[params] learning_rate", "nan")),
    Case("learning-rate-zero", tables="[params]\nlearning_rate = 0.0\n",
         words=("c.toml", "[params] learning_rate", "> 0")),
    Case("learning-rate-negative", tables="[model_params.lightgbm-lambdarank]\nlearning_rate = -0.1\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] learning_rate", "> 0")),
    Case("learning-rate-string", tables="[params]\nlearning_rate = \"0.1\"\n",
         words=("c.toml", "[params] learning_rate", "number", "'0.1'")),
    Case("decay-without-floor", tables="[params]\nlearning_rate_decay = 0.01\n",
         words=("c.toml", "learning_rate_min", "> 0")),
    Case("num-leaves-one", tables="[params]\nnum_leaves = 1\n",
         words=("c.toml", "[params] num_leaves", "131072")),
    Case("num-leaves-huge", tables="[params]\nnum_leaves = 1000000\n",
         words=("c.toml", "[params] num_leaves", "131072")),
    Case("max-depth-float", tables="[params]\nmax_depth = 6.0\n",
         words=("c.toml", "[params] max_depth", "an integer")),
    Case("max-bin-one", tables="[params]\nmax_bin = 1\n", words=("c.toml", "[params] max_bin")),
    Case("subsample-above-one", tables="[params]\nsubsample = 1.5\n",
         words=("c.toml", "[params] subsample", "1")),
    Case("colsample-zero", tables="[params]\ncolsample = 0.0\n",
         words=("c.toml", "[params] colsample")),
    Case("colsample-tiny", tables="[params]\ncolsample = 1e-300\n",
         words=("c.toml", "[params] colsample")),
    Case("l2-negative", tables="[params]\nl2 = -1.0\n", words=("c.toml", "[params] l2", ">= 0")),
    Case("l1-inf", tables="[params]\nl1 = inf\n", words=("c.toml", "[params] l1", "inf")),
    Case("min-child-weight-nan", tables="[params]\nmin_child_weight = nan\n",
         words=("c.toml", "[params] min_child_weight")),
    Case("min-split-gain-huge", tables="[params]\nmin_split_gain = 1e400\n",
         words=("c.toml", "[params] min_split_gain")),
    Case("n-threads-negative", tables="[params]\nn_threads = -1\n",
         words=("c.toml", "[params] n_threads")),
    Case("n-threads-huge", tables="[params]\nn_threads = 99999999999\n",
         words=("c.toml", "[params] n_threads", "1024")),
    Case("early-stopping-zero", tables="[params]\nearly_stopping_rounds = 0\n",
         words=("c.toml", "[params] early_stopping_rounds")),
    Case("truncation-level-zero", tables="[params]\ntruncation_level = 0\n",
         words=("c.toml", "[params] truncation_level")),
    Case("label-gain-unknown", tables="[params]\nlabel_gain = \"log\"\n",
         words=("c.toml", "[params] label_gain", "exp2")),
    Case("lambdarank-norm-string", tables="[params]\nlambdarank_norm = \"yes\"\n",
         words=("c.toml", "[params] lambdarank_norm", "true or false")),
    Case("params-unknown-key", tables="[params]\nnum_leaf = 7\n",
         words=("c.toml", "[params] num_leaf", "num_leaves")),
    Case("model-params-unknown-key", tables="[model_params.lightgbm-lambdarank]\nlearnig_rate = 0.1\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] learnig_rate", "learning_rate")),
    Case("model-params-unknown-model", tables="[model_params.lightgbm-lambdarnk]\nn_trees = 5\n",
         words=("c.toml", "model_params", "lightgbm-lambdarnk", "lightgbm-lambdarank")),
    Case("model-params-not-a-table", top={"model_params": "5"},
         words=("c.toml", "model_params", "a table")),
    Case("params-not-a-table", top={"params": '"n_trees=5"'}, words=("c.toml", "params", "a table")),
    Case("raw-table-not-a-table", tables="[params]\nlightgbm = 5\n",
         words=("c.toml", "[params] lightgbm", "a table")),
    Case("params-device", tables="[params]\ndevice = \"cuda\"\n",
         words=("c.toml", "device", "top of the config")),
    Case("top-unknown-key", top={"seed": "0"}, words=("c.toml", "seed", "did you mean", "seeds")),
    Case("top-quick-int", top={"quick": "1"}, words=("c.toml", "quick", "true or false")),
    Case("log-train-int", top={"log_train": "0"}, words=("c.toml", "log_train", "true or false")),
    Case("strict-string", top={"strict": '"true"'}, words=("c.toml", "strict", "true or false")),
    Case("cache-string", top={"cache": '"no"'}, words=("c.toml", "cache", "true or false")),
    Case("permute-check-int", top={"permute_check": "1"}, words=("c.toml", "permute_check")),
    Case("dataset-int", top={"dataset": "5"}, words=("c.toml", "dataset", "string")),
    Case("dataset-empty", top={"dataset": '""'}, words=("c.toml", "dataset", "empty")),
    Case("name-list", top={"name": "[1]"}, words=("c.toml", "name", "string")),
    Case("profile-int", top={"profile": "5"}, words=("c.toml", "profile", "string")),
    Case("models-int", top={"models": "5"}, words=("c.toml", "models")),
    Case("models-empty", top={"models": "[]"}, words=("c.toml", "models", "empty")),
    Case("models-list-of-int", top={"models": "[1]"}, words=("c.toml", "models")),
    Case("metrics-int", top={"metrics": "5"}, words=("c.toml", "metrics")),
    Case("seeds-empty", top={"seeds": "[]"}, words=("c.toml", "seeds", "empty")),
    Case("seeds-negative", top={"seeds": "[-1]"}, words=("c.toml", "seeds", "0 to 2147483647")),
    Case("seeds-beyond-int32", top={"seeds": "[2147483648]"},
         words=("c.toml", "seeds", "2147483647")),
    Case("seeds-huge-range", top={"seeds": '"0-999999999999"'}, words=("c.toml", "seeds")),
    Case("seeds-float-string", top={"seeds": '"1.5"'}, words=("c.toml", "seeds", "'1.5'")),
    Case("seeds-table", top={"seeds": "{a = 1}"}, words=("c.toml", "seeds")),
    Case("eval-at-zero", top={"eval_at": "[0]"}, words=("c.toml", "eval_at")),
    Case("eval-at-bool", top={"eval_at": "[true]"}, words=("c.toml", "eval_at", "true")),
    Case("eval-at-string", top={"eval_at": '"10"'}, words=("c.toml", "eval_at")),
    Case("eval-at-empty", top={"eval_at": "[]"}, words=("c.toml", "eval_at", "empty")),
    Case("eval-at-huge", top={"eval_at": "[99999999999]"}, words=("c.toml", "eval_at")),
    Case("timing-repeats-float", top={"timing_repeats": "1.5"},
         words=("c.toml", "timing_repeats", "an integer")),
    Case("workers-bool", top={"workers": "true"}, words=("c.toml", "workers", "an integer")),
    Case("engine-unknown", top={"engine": '"spark"'}, words=("c.toml", "engine", "local")),
    Case("device-unknown", top={"device": '"gpu"'}, words=("c.toml", "device", "cuda")),
    Case("timing-int", top={"timing": "1"}, words=("c.toml", "timing")),
    Case("scheduler-int", top={"scheduler": "5"}, words=("c.toml", "scheduler", "string")),
    Case("select-metric-int", top={"select_metric": "10"}, words=("c.toml", "select_metric")),
    Case("als-factors-zero", tables="[als]\nfactors = 0\n", words=("c.toml", "[als] factors")),
    Case("als-factors-float", tables="[als]\nfactors = 1.5\n",
         words=("c.toml", "[als] factors", "an integer")),
    Case("als-regularization-negative", tables="[als]\nregularization = -1.0\n",
         words=("c.toml", "[als] regularization")),
    Case("als-unknown-key", tables="[als]\nfactor = 8\n",
         words=("c.toml", "[als] factor", "factors")),
    Case("profile-unknown", top={"profile": '"trec-eval"'},
         words=("c.toml", "profile: unknown profile 'trec-eval'", "trec_eval")),
    Case("metrics-unknown", top={"metrics": '["ndcg@10", "ndgc@5"]'},
         words=("c.toml", "metrics: unknown metric 'ndgc@5'")),
    Case("models-unknown", top={"models": '["lightgbm-dart"]'},
         words=("c.toml", "models: unknown model 'lightgbm-dart'", "lightgbm-lambdarank")),
    Case("model-params-for-a-baseline", tables="[model_params.random]\nn_trees = 5\n",
         words=("c.toml", "[model_params.random]", "not a LightGBM, XGBoost or CatBoost model")),
    Case("eval-at-repeats", top={"eval_at": "[10, 10]"}, words=("c.toml", "eval_at", "repeats")),
    Case("seeds-repeat", top={"seeds": "[1, 1]"}, words=("c.toml", "seeds", "repeat")),
    Case("key-wrong-case", top={"Quick": "true"}, words=("c.toml", "Quick", "did you mean 'quick'")),
    Case("config-is-a-folder", raw=None, args=("--config", "."),
         words=("is a directory", "a TOML file")),
    Case("not-utf8", raw=VALID.encode() + b'name = "\xff"\n', words=("c.toml", "UTF-8")),
    Case("utf16-be-config", raw=b"\xfe\xff" + VALID.encode("utf-16-be"),
         words=("c.toml", "UTF-16")),
    Case("not-toml", raw=b"dataset = \n", words=("c.toml", "not valid TOML")),
    Case("catboost-max-bin-beyond-65535", top={"models": '["catboost-lambdamart"]'},
         tables="[params]\nmax_bin = 70000\n", words=("c.toml", "max_bin", "65535")),
    Case("catboost-rate-schedule", top={"models": '["catboost-yetirank"]'},
         tables="[params]\nlearning_rate_decay = 0.001\nlearning_rate_min = 0.01\n",
         words=("c.toml", "CatBoost", "learning_rate_decay")),
]

TUNE_CASES: list[Case] = [
    Case("tune-model-and-models", args=("--model", "lightgbm", "--models", "xgboost", "--grid",
                                         "num_leaves=3,7"), words=("--models", "--model", "give one")),
    Case("tune-grid-device-cuda", args=("--model", "lightgbm", "--grid", "device=cpu,cuda"),
         words=("--grid", "device", "set once for the run")),
    Case("tune-config-device-cuda", top={"device": '"cuda"'},
         args=("--model", "lightgbm", "--grid", "num_leaves=3,7"), words=("'cuda'",)),
    Case("tune-grid-unknown-param", args=("--model", "lightgbm", "--grid", "num_leaf=3,7"),
         words=("--grid", "num_leaf", "num_leaves")),
    Case("tune-grid-float-for-int", args=("--model", "lightgbm", "--grid", "num_leaves=3,7.5"),
         words=("--grid", "num_leaves", "an integer", "7.5")),
    Case("tune-grid-out-of-range", args=("--model", "lightgbm", "--grid", "subsample=0.5,2"),
         words=("--grid", "subsample")),
    Case("tune-grid-nan", args=("--model", "lightgbm", "--grid", "learning_rate=nan"),
         words=("--grid", "learning_rate")),
    Case("tune-grid-bad-label-gain", args=("--model", "xgboost", "--grid", "label_gain=exp2,log"),
         words=("--grid", "label_gain", "linear")),
    Case("tune-grid-catboost-decay", args=("--model", "catboost", "--grid",
                                           "learning_rate_decay=0.01;learning_rate_min=0.01"),
         words=("CatBoost", "learning_rate_decay")),
    Case("tune-budget-zero", args=("--model", "lightgbm", "--grid", "num_leaves=3,7",
                                   "--budget-trials", "0"), words=("--budget-trials", "1")),
    Case("tune-folds-one", args=("--model", "lightgbm", "--grid", "num_leaves=3,7", "--cv",
                                 "1"), words=("--cv", "2")),
    Case("tune-seed-negative", args=("--model", "lightgbm", "--grid", "num_leaves=3,7", "--seed",
                                     "-1"), words=("--seed", "2147483647")),
    Case("tune-seeds-float", args=("--model", "lightgbm", "--grid", "num_leaves=3,7", "--seeds",
                                   "1.5"), words=("--seeds", "'1.5'")),
    Case("tune-n-trees-float", args=("--model", "lightgbm", "--grid", "num_leaves=3,7",
                                     "--n-trees", "1.5"), words=("--n-trees", "an integer")),
    Case("tune-grid-repeated-value", args=("--model", "lightgbm", "--grid", "num_leaves=3,3"),
         words=("--grid", "num_leaves", "3")),
]


def _run(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> str:
    (tmp_path / "letor").mkdir(exist_ok=True)
    for split, data in SPLITS.items():
        (tmp_path / "letor" / f"{split}.txt").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    status = cli.main(argv)  # an exception escaping here fails the test: a traceback
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert not (tmp_path / "res" / "runs").exists() or not any((tmp_path / "res" / "runs").iterdir())
    return lines[0]


@pytest.mark.parametrize("case", CONFIG_CASES, ids=[c.name for c in CONFIG_CASES])
def test_hostile_config(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.toml").write_bytes(_text(case))
    config = [] if "--config" in case.args else ["--config", "c.toml"]  # an option once
    line = _run(["run", *config, "--no-progress", "--out", "res", *case.args],
                tmp_path, monkeypatch, capsys)
    for word in case.words:
        assert word in line, f"{word!r} not in {line!r}"


@pytest.mark.parametrize("case", TUNE_CASES, ids=[c.name for c in TUNE_CASES])
def test_hostile_tune(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    config = ()
    if case.top or case.tables:
        (tmp_path / "c.toml").write_bytes(_text(case))
        config = ("--config", "c.toml")
    folds = [] if "--cv" in case.args else ["--cv", "2"]  # an option is given once
    line = _run(["tune", *config, "--dataset", "./letor", "--no-progress", *folds,
                 "--quick", "--out", "res", *case.args], tmp_path, monkeypatch, capsys)
    for word in case.words:
        assert word in line, f"{word!r} not in {line!r}"
    assert not (tmp_path / "res" / "tune").exists()


def test_the_base_config_of_the_catalogue_is_valid(tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    (tmp_path / "c.toml").write_text(VALID)
    cfg = RunConfig.load(tmp_path / "c.toml")
    assert cfg.quick is True
    assert cfg.crosscheck is False
    assert cfg.seeds == (0,)
