"""Hostile run configs, round 8: new instances of issue 19's "configs" class (item 5: one
schema for a TOML file, the Python API and the command line).

New here: ``eval_at`` with more than 1,000 cutoffs (100,000 kept a five-row run busy for 285 s
and were accepted), command-line overrides that a config file's ``[model_params.<model>]``
silently beat (``--n-trees 3`` beside ``n_trees = 7`` trained 7 trees), and further instances
of the classes earlier rounds covered: a selection metric at cutoff 0, 1.5 or in full-width
digits, early stopping on the test split, choices in another case (``"CPU"``, ``"Isolated"``),
integers past 2^63 and 2^31, a float where an integer belongs (``n_trees = 1e2``), label gains
that are empty / NaN / negative, dotted keys, arrays of tables, duplicate keys and tables,
keys with a trailing blank, a zero-width space or nothing, line ends inside names, CatBoost's
and XGBoost's own limits.

Each case runs ``ltrbench run --config c.toml`` in-process (:func:`hostile_kit.cli`): it must
exit 2 with one ``error:`` line naming the file (or the option), the key as the file spells
it and what was expected, before any data are loaded. ``python
tests/test_hostile_round8_configs.py`` prints the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, refused
from test_hostile_config import SPLITS, Case, _text

GBDT = {"models": '["lightgbm-lambdarank"]'}
CAT = {"models": '["catboost-yetirank"]', "quick": "false"}
XGB = {"models": '["xgboost-ndcg"]'}

CASES: list[Case] = [
    # ------------------------------------------------------------ fixed in round 8
    Case("eval-at-with-1001-cutoffs", top={"eval_at": "[" + ", ".join(
        str(k) for k in range(1, 1002)) + "]"}, words=("c.toml", "eval_at", "at most 1000")),
    Case("n-trees-option-beaten-by-model-params",
         tables="[model_params.lightgbm-lambdarank]\nn_trees = 7\n", args=("--n-trees", "3"),
         words=("--n-trees", "c.toml", "[model_params.lightgbm-lambdarank] n_trees")),
    Case("threads-option-beaten-by-model-params",
         tables="[model_params.lightgbm-lambdarank]\nn_threads = 2\n", args=("--threads", "1"),
         words=("--threads", "c.toml", "[model_params.lightgbm-lambdarank] n_threads")),
    # ------------------------------------------------------------ values at the edges
    Case("select-metric-at-cutoff-0", top={"select_metric": '"ndcg@0"'},
         words=("c.toml", "ndcg@0")),
    Case("select-metric-at-cutoff-1.5", top={"select_metric": '"ndcg@1.5"'},
         words=("c.toml", "ndcg@1.5")),
    Case("select-metric-in-full-width-digits", top={"select_metric": '"ndcg@１０"'},
         words=("c.toml", "ndcg@１０")),
    Case("early-stopping-on-the-test-split", top={"early_stopping_split": '"test"'},
         words=("c.toml", "early_stopping_split", "test")),
    # device "CPU" and timing "Isolated" were refused here; round 23b made one rule for a choice
    # on every door (read as spelled, said once): tests/test_hostile_round23b_choices.py
    Case("workers-zero", top={"workers": "0"}, words=("c.toml", "workers")),
    Case("n-trees-past-2-to-the-64", tables="[params]\nn_trees = 18446744073709551616\n",
         words=("c.toml", "[params] n_trees")),
    Case("n-trees-written-1e2", tables="[params]\nn_trees = 1e2\n",
         words=("c.toml", "[params] n_trees", "integer")),
    Case("num-leaves-2-to-the-31", tables="[params]\nnum_leaves = 2147483648\n",
         words=("c.toml", "[params] num_leaves")),
    Case("label-gain-empty", tables="[params]\nlabel_gain = []\n",
         words=("c.toml", "[params] label_gain")),
    Case("label-gain-holding-nan", tables="[params]\nlabel_gain = [0, nan, 3]\n",
         words=("c.toml", "[params] label_gain")),
    Case("label-gain-negative", tables="[params]\nlabel_gain = [0, -1, 3]\n",
         words=("c.toml", "[params] label_gain")),
    Case("catboost-num-leaves-past-its-65536", top=CAT,
         tables="[model_params.catboost-yetirank]\nnum_leaves = 100000\n",
         words=("c.toml", "num_leaves", "65536")),
    Case("xgboost-max-bin-one", top=XGB, tables="[model_params.xgboost-ndcg]\nmax_bin = 1\n",
         words=("c.toml", "[model_params.xgboost-ndcg] max_bin")),
    Case("xgboost-native-eta-in-model-params", top=XGB,
         tables="[model_params.xgboost-ndcg]\neta = 0.1\n",
         words=("c.toml", "[model_params.xgboost-ndcg] eta")),
    # ------------------------------------------------------------ TOML shapes and keys
    Case("dotted-key-for-a-param", top={"params.n_trees": "1.5"},
         words=("c.toml", "n_trees", "integer")),
    Case("array-of-params-tables", tables="[[params]]\nn_trees = 5\n",
         words=("c.toml", "params")),
    Case("array-of-custom-model-tables",
         tables='[[custom_models]]\nfactory = "sklearn.linear_model:Ridge"\n',
         words=("c.toml", "custom_models")),
    Case("a-key-given-twice", raw=(_text(Case("x")) + b"quick = false\n"),
         words=("c.toml", "quick")),
    Case("a-table-given-twice", tables="[params]\nn_trees = 5\n[params]\nnum_leaves = 7\n",
         words=("c.toml", "params")),
    Case("key-with-a-trailing-blank", top={'"quick "': "true"}, words=("c.toml", "'quick'")),
    Case("key-with-a-zero-width-space", top={'"qu\u200bick"': "true"},
         words=("c.toml", "'quick'")),
    Case("empty-key", top={'""': "true"}, words=("c.toml",)),
    Case("models-named-twice", top={"models": '["lightgbm-lambdarank", "lightgbm-lambdarank"]'},
         words=("c.toml", "models", "twice")),
    Case("name-holding-a-line-end", top={"name": '"a\\nb"'}, words=("c.toml", "name")),
    Case("dataset-holding-a-line-end", top={"dataset": '"./letor\\n"'}, words=("dataset",)),
]


def problem(case: Case, tmp: Path) -> str | None:
    """None when ``ltrbench run --config c.toml ARGS`` refused ``case`` as the module doc says."""
    (tmp / "letor").mkdir(exist_ok=True)
    for split, data in SPLITS.items():
        (tmp / "letor" / f"{split}.txt").write_bytes(data)
    (tmp / "c.toml").write_bytes(_text(case))
    res = cli(tmp, "run", "--config", "c.toml", "--no-progress", "--out", "res", *case.args)
    trained = (tmp / "res" / "runs").is_dir() and any((tmp / "res" / "runs").iterdir())
    return refused(res, *case.words) or ("a run folder was written" if trained else None)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round8(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


if __name__ == "__main__":  # counts
    import tempfile

    failed = 0
    for c in CASES:
        with tempfile.TemporaryDirectory() as d:
            p = problem(c, Path(d))
        if p is not None:
            failed += 1
            print(f"FAIL {c.name}: {p[:240]}")
    print(f"{failed} of {len(CASES)} cases failed")
