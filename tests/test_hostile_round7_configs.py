"""Hostile run configs, round 7: new instances of issue 19 item 5 (one schema for TOML, API, CLI).

Nested tables where a value belongs (``[models]``, ``[seeds]``, ``[params.lightgbm.sub]``,
``[custom_models.m.params.x]``), arrays mixing types (``models = ["lightgbm-lambdarank", 5]``,
``eval_at = [1, "3"]``, ``seeds = [0, 1.0]``), keys that differ from a valid one only by case
or by a Unicode look-alike (``Quick``, full-width ``ｑuick``, ``[Params]``), two custom models
whose names differ only by Unicode normalisation, a ``[model_params]`` table for a model the
run does not train, TOML date-times where numbers or names belong, integers at the edge of
int64 (``timing_repeats``, ``workers``, ``seeds``), and include-like keys (``include``,
``extends``, ``$HOME`` in a path).

Each case runs ``ltrbench run --config c.toml`` in-process (the round-5 harness of
:mod:`test_hostile_config`): it must exit 2 with one ``error:`` line naming the file, the key
as the file spells it and what was expected, before any data are loaded; a warning case must
say the key it ignores. The Python API cases give the same values to
:class:`~bench.benchmark.config.RunConfig` and expect a :class:`~bench.errors.ConfigError`
naming the key.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_hostile_config import BASE, SPLITS, Case, _run, _text

from bench import cli

CASES: list[Case] = [
    # ---------------------------------------------------- nested tables in the wrong place
    Case("models-as-a-table", top={"models": None}, tables="[models]\nlightgbm = true\n",
         words=("c.toml", "models", "list")),
    Case("seeds-as-a-table", top={"seeds": None}, tables="[seeds]\nfirst = 0\n",
         words=("c.toml", "seeds")),
    Case("dataset-as-a-table", top={"dataset": None}, tables='[dataset]\npath = "./letor"\n',
         words=("c.toml", "dataset", "string", "a table")),
    Case("raw-library-table-with-a-table-inside", tables="[params.lightgbm.extra]\na = 1\n",
         words=("c.toml", "[params] lightgbm", "extra")),
    Case("model-params-table-inside-a-param", tables=(
        "[model_params.lightgbm-lambdarank.learning_rate]\nvalue = 0.1\n"),
         words=("c.toml", "[model_params.lightgbm-lambdarank] learning_rate")),
    Case("als-table-inside-als", tables="[als.factors]\nn = 3\n",
         words=("c.toml", "als", "factors")),
    Case("eval-at-a-list-of-lists", top={"eval_at": "[[1, 3]]"},
         words=("c.toml", "eval_at", "integer")),
    Case("metrics-a-list-of-tables", top={"metrics": '[{name = "ndcg@10"}]'},
         words=("c.toml", "metrics")),
    # ---------------------------------------------------- arrays of mixed types
    Case("models-mixing-a-name-and-an-int",
         top={"models": '["lightgbm-lambdarank", 5]'}, words=("c.toml", "models", "5")),
    Case("eval-at-mixing-int-and-text", top={"eval_at": '[1, "3"]'},
         words=("c.toml", "eval_at", "'3'")),
    Case("seeds-mixing-int-and-float", top={"seeds": "[0, 1.0]"},
         words=("c.toml", "seeds", "1.0")),
    Case("metrics-mixing-text-and-bool", top={"metrics": '["ndcg@10", true]'},
         words=("c.toml", "metrics", "true")),
    Case("label-gain-mixing-numbers-and-text", tables='[params]\nlabel_gain = [0, 1, "3"]\n',
         words=("c.toml", "[params] label_gain")),
    # ---------------------------------------------------- keys that only look valid
    Case("key-capitalised-beside-the-key", top={"Quick": "false"},
         words=("c.toml", "Quick", "'quick'")),
    Case("key-full-width-letter", top={'"ｑuick"': "false"},
         words=("c.toml", "ｑuick", "'quick'")),
    Case("table-capitalised", tables="[Params]\nn_trees = 5\n",
         words=("c.toml", "Params", "'params'")),
    Case("param-capitalised", tables="[params]\nN_trees = 5\n",
         words=("c.toml", "[params] N_trees", "'n_trees'")),
    Case("param-with-a-cyrillic-letter", tables='[params]\n"n_trееs" = 5\n',
         words=("c.toml", "[params] n_tr", "'n_trees'")),
    Case("model-name-with-a-full-width-letter", top={"models": '["ｌightgbm-lambdarank"]'},
         words=("c.toml", "models", "ｌightgbm-lambdarank")),
    Case("custom-models-differing-by-normalisation", tables=(
        '[custom_models."caf\u00e9"]\nfactory = "sklearn.linear_model:Ridge"\n'
        '[custom_models."cafe\u0301"]\nfactory = "sklearn.linear_model:Ridge"\n'),
         top={"models": '["caf\u00e9", "cafe\u0301"]'}, words=("c.toml", "custom_models")),
    # ---------------------------------------------------- date-times, overflow
    Case("n-trees-is-a-date", tables="[params]\nn_trees = 1979-05-27\n",
         words=("c.toml", "[params] n_trees", "a date")),
    Case("dataset-is-a-date-time", top={"dataset": "1979-05-27T07:32:00Z"},
         words=("c.toml", "dataset", "string", "datetime")),
    Case("quick-is-a-time", top={"quick": "07:32:00"}, words=("c.toml", "quick", "true or false")),
    Case("eval-at-holds-a-date", top={"eval_at": "[1979-05-27]"},
         words=("c.toml", "eval_at", "integer")),
    Case("timing-repeats-int64-max", top={"timing_repeats": "9223372036854775807"},
         words=("c.toml", "timing_repeats", "1000")),
    Case("workers-int64-max", top={"workers": "9223372036854775807"},
         words=("c.toml", "workers")),
    Case("seeds-int64-min", top={"seeds": "[-9223372036854775808]"},
         words=("c.toml", "seeds", "2147483647")),
    Case("n-trees-int64-max", tables="[params]\nn_trees = 9223372036854775807\n",
         words=("c.toml", "[params] n_trees")),
    Case("model-params-seed-like-key-huge",
         tables="[model_params.lightgbm-lambdarank]\nnum_leaves = 9223372036854775807\n",
         words=("c.toml", "[model_params.lightgbm-lambdarank] num_leaves")),
    # ---------------------------------------------------- include-like tricks
    Case("include-key", top={"include": '"other.toml"'}, words=("c.toml", "include")),
    Case("extends-key", top={"extends": '"base.toml"'}, words=("c.toml", "extends")),
    Case("dataset-with-an-unset-variable", top={"dataset": '"$NO_SUCH_VAR/letor"'},
         words=("$NO_SUCH_VAR/letor",)),
    Case("data-dir-of-an-unknown-user", top={"data_dir": '"~nosuchuser7/x"'},
         words=("data_dir", "~nosuchuser7")),
    Case("name-with-a-nul", top={"name": '"a\\u0000b"'}, words=("c.toml", "name")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round7(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.toml").write_bytes(_text(case))
    line = _run(["run", "--config", "c.toml", "--no-progress", "--out", "res", *case.args],
                tmp_path, monkeypatch, capsys)
    for word in case.words:
        assert word in line, f"{word!r} not in {line!r}"


def test_model_params_for_a_model_the_run_does_not_train_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``[model_params.xgboost-lambdamart]`` in a LightGBM-only run: refused or warned, naming
    the table (it would otherwise be ignored in silence)."""
    from bench.benchmark.config import RunConfig
    from bench.errors import ConfigError

    case = Case("mp", tables="[model_params.xgboost-lambdamart]\nn_trees = 5\n")
    (tmp_path / "c.toml").write_bytes(_text(case))
    monkeypatch.chdir(tmp_path)
    try:
        cfg = RunConfig.load("c.toml")
    except ConfigError as exc:
        if "xgboost-lambdamart" not in str(exc):
            pytest.fail(str(exc))
        return
    assert any("xgboost-lambdamart" in u for u in cfg.unused()), cfg.unused()


def test_a_run_name_that_climbs_out_names_the_run_and_writes_inside_the_results(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``name = "../../escaped"``: refused before any run since round 14 (a name holding a path
    separator: folders are named after its last part, so ``a/b`` and ``c/b`` shared one); nothing
    is written outside the working folder, nor inside it."""
    case = Case("climb", top={"name": '"../../escaped"'})
    (tmp_path / "c.toml").write_bytes(_text(case))
    (tmp_path / "letor").mkdir()
    for split, data in SPLITS.items():
        (tmp_path / "letor" / f"{split}.txt").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    before = {p.name for p in tmp_path.parent.iterdir()}
    status = cli.main(["run", "--config", "c.toml", "--no-progress", "--out", "res"])
    assert status == 2
    assert {p.name for p in tmp_path.parent.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml", "letor"]


API_CASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "models-a-set": ({"models": {"lightgbm-lambdarank"}}, ("models",)),
    "models-mixing-a-name-and-an-int": ({"models": ("lightgbm-lambdarank", 5)}, ("models", "5")),
    "seeds-a-generator": ({"seeds": (s for s in (0, 1))}, ("seeds",)),
    "seeds-numpy-float": ({"seeds": (0, __import__("numpy").float64(1.0))}, ("seeds",)),
    "seeds-int64-min": ({"seeds": (-(2**63),)}, ("seeds", "2147483647")),
    "eval-at-mixing-int-and-text": ({"eval_at": (1, "3")}, ("eval_at", "'3'")),
    "quick-numpy-bool-text": ({"quick": "True"}, ("quick",)),
    "timing-repeats-huge": ({"timing_repeats": 2**62}, ("timing_repeats", "1000")),
    "params-a-dict": ({"params": {"n_trees": 5}}, ("params",)),
    "model-params-of-a-non-string-key": ({"model_params": {5: {"n_trees": 5}}}, ("model_params",)),
    "model-params-value-not-a-dict": ({"model_params": {"lightgbm-lambdarank": 5}},
                                      ("model_params", "lightgbm-lambdarank")),
    "data-dir-of-an-unknown-user": ({"data_dir": "~nosuchuser7/x"}, ("data_dir", "~")),
    "data-dir-a-path-of-a-number": ({"data_dir": 5}, ("data_dir",)),
}


@pytest.mark.parametrize("key", list(API_CASES))
def test_hostile_config_round7_api(key: str) -> None:
    """The same schema from Python: each value is a ConfigError naming the key, never a
    TypeError from inside, never coerced."""
    from bench.benchmark.config import RunConfig
    from bench.errors import LtrbenchError

    kwargs, words = API_CASES[key]
    try:
        from bench.benchmark.config_schema import check_data_dir

        cfg = RunConfig(**{"dataset": "./letor", "models": ("lightgbm-lambdarank",), **kwargs})
        check_data_dir(cfg.data_dir)  # as RunConfig.load and run() do
    except LtrbenchError as exc:
        missing = [w for w in words if w not in str(exc)]
        if missing:
            pytest.fail(f"{str(exc)!r} lacks {missing}")
        return
    except Exception as exc:
        pytest.fail(f"traceback: {type(exc).__name__}: {exc}")
    pytest.fail(f"accepted {kwargs!r}, expected a clear error")


CLI_CASES: list[tuple[str, list[str], tuple[str, ...]]] = [
    ("seeds-with-an-underscore", ["--seeds", "1_0"], ("--seeds", "1_0")),
    ("seeds-in-arabic-digits", ["--seeds", "١"], ("--seeds",)),
    ("seeds-hex", ["--seeds", "0x1"], ("--seeds", "0x1")),
    ("n-trees-full-width", ["--n-trees", "１０"], ("--n-trees",)),
    ("data-dir-of-an-unknown-user", ["--data-dir", "~nosuchuser7/x"], ("--data-dir", "~")),
]


@pytest.mark.parametrize(("name", "argv", "words"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_hostile_cli_round7(name: str, argv: list[str], words: tuple[str, ...], tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", "--dataset", "./letor", "--models", "lightgbm-lambdarank", "--seeds", "0",
            "--quick", "--no-crosscheck", "--no-progress", "--out", "res"]
    for opt in {a for a in argv if a.startswith("--")}:
        i = base.index(opt) if opt in base else -1
        if i >= 0:
            del base[i:i + 2]
    line = _run([*base, *argv], tmp_path, monkeypatch, capsys)
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"


if __name__ == "__main__":  # counts
    import subprocess

    raise SystemExit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p",
                                      "no:cacheprovider", __file__]))

_ = BASE
