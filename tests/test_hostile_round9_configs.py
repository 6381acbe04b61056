"""Hostile run configs, round 9: new instances of issue 19's "configs" class (item 5: one
schema for a TOML file, the Python API and the command line), after round 8's.

New here: library limits that passed the range table (CatBoost ``max_depth = 17``, which its
SymmetricTree and Depthwise refuse as "Maximum tree depth is 16"; ``n_threads = 100000`` or
``2147483647``, which crash LightGBM and CatBoost: libgomp out of memory, SIGSEGV, SIGFPE),
CatBoost's ``max_depth = 0`` (documented "no limit", trained as CatBoost's depth 0: every tree
one leaf, a constant model, exit 0), raw keys that change the early-stopping rule or the model
cut at its iteration (CatBoost ``od_wait`` beside ``early_stopping_rounds``: "only one of the
parameters ... should be initialized" after the data were loaded; ``use_best_model``; DART in
LightGBM ``boosting`` or XGBoost ``booster``, which rescales earlier trees, so the model cut at
the early-stopping iteration is not the one scored), keys in the wrong table (``n_trees`` at the top, ``quick``
in ``[params]``), TOML features (inline tables, dotted keys into ``[params]``, datetimes,
full-width and compatibility forms of key names: ``ｎ_trees``), very long strings (a
200,000-character value was echoed whole in the error line), a model name in another Unicode
form than the custom model's ("unknown model 'café'; did you mean 'café'?"). (The command
line over a file that names its dataset, ``--dataset`` beside the file's ``name`` /
``published``: tests/test_hostile_round9_named_config.py.)

Each case runs ``ltrbench run --config c.toml`` in-process (:func:`hostile_kit.cli`): it must
exit 2 with one ``error:`` line naming the file (or the option), the key as the file spells
it and what was expected, before any data are loaded. ``python
tests/test_hostile_round9_configs.py`` prints the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli, refused
from test_hostile_config import SPLITS, Case

from bench.runners.params import Params, catboost_params

CAT = {"models": '["catboost-yetirank"]', "quick": "false"}
XGB = {"models": '["xgboost-ndcg"]'}
LONG = "x" * 200_000

CASES: list[Case] = [
    # ------------------------------------------------------------ library limits (fixed here)
    Case("catboost-max-depth-17", top=CAT, tables="[model_params.catboost-yetirank]\n"
         "max_depth = 17\n", words=("c.toml", "[model_params.catboost-yetirank] max_depth", "16")),
    Case("catboost-max-depth-2-to-the-31", top=CAT, tables="[params]\nmax_depth = 2147483647\n",
         words=("c.toml", "max_depth", "16")),
    Case("n-threads-100000", tables="[params]\nn_threads = 100000\n",
         words=("c.toml", "[params] n_threads", "1024")),
    Case("n-threads-2-to-the-31-minus-1", tables="[params]\nn_threads = 2147483647\n",
         words=("c.toml", "[params] n_threads")),
    Case("threads-option-100000", args=("--threads", "100000"), words=("--threads", "1024")),
    Case("model-n-threads-65535", tables="[model_params.lightgbm-lambdarank]\n"
         "n_threads = 65535\n", words=("c.toml", "[model_params.lightgbm-lambdarank] n_threads")),
    Case("catboost-od-wait-beside-early-stopping", top=CAT,
         tables="[params.catboost]\nod_wait = 5\n",
         words=("c.toml", "catboost od_wait", "early_stopping_rounds")),
    Case("catboost-use-best-model", top=CAT, tables="[params.catboost]\nuse_best_model = true\n",
         words=("c.toml", "catboost use_best_model", "early_stopping_rounds")),
    Case("lightgbm-dart", tables='[params.lightgbm]\nboosting = "dart"\n',
         words=("c.toml", "lightgbm boosting", "DART")),
    Case("lightgbm-dart-by-an-alias", tables='[params.lightgbm]\nboosting_type = "dart"\n',
         words=("c.toml", "lightgbm boosting_type", "DART")),
    Case("xgboost-dart", top=XGB, tables='[params.xgboost]\nbooster = "dart"\n',
         words=("c.toml", "xgboost booster", "DART")),
    # ------------------------------------------------------------ keys in the wrong table
    Case("n-trees-at-the-top", top={"n_trees": "5"}, words=("c.toml", "n_trees", "[params]")),
    Case("a-raw-table-at-the-top", top={"lightgbm": "{min_data_in_bin = 3}"},
         words=("c.toml", "lightgbm", "[params.lightgbm]")),
    Case("quick-in-params", tables="[params]\nquick = true\n", words=("c.toml", "[params] quick")),
    Case("seeds-in-model-params", tables="[model_params.lightgbm-lambdarank]\nseeds = [1]\n",
         words=("c.toml", "seeds")),
    Case("a-params-key-in-als", tables="[als]\nn_trees = 5\n", words=("c.toml", "[als]")),
    # ------------------------------------------------------------ TOML features
    Case("full-width-key", tables="[params]\n\"ｎ_trees\" = 5\n",
         words=("c.toml", "n_trees")),
    Case("compatibility-ligature-key", tables="[params]\n\"ﬁxed\" = 5\n", words=("c.toml",)),
    Case("datetime-quick", top={"quick": "1979-05-27T07:32:00Z"},
         words=("c.toml", "quick", "true or false")),
    Case("local-date-seeds", top={"seeds": "[1979-05-27]"}, words=("c.toml", "seeds")),
    Case("time-n-trees", tables="[params]\nn_trees = 07:32:00\n",
         words=("c.toml", "[params] n_trees", "integer")),
    Case("inline-params-table-bad-value", top={"params": "{n_trees = 1.5}"},
         words=("c.toml", "n_trees", "integer")),
    Case("dotted-raw-table-unknown-key", top={"params.lightgbm.num_leafs": "5"},
         words=("c.toml", "num_leafs")),
    Case("inline-model-params-unknown-model", top={"model_params": "{lightgbm-lambdarnk = "
                                                   "{n_trees = 5}}"},
         words=("c.toml", "lightgbm-lambdarnk")),
    Case("very-long-dataset-name", top={"dataset": f'"{LONG}"'}, words=("c.toml", "dataset")),
    Case("very-long-profile", top={"profile": f'"{LONG}"'}, words=("c.toml", "profile")),
    Case("very-long-select-metric", top={"select_metric": f'"{LONG}"'},
         words=("c.toml", "select_metric")),
    Case("very-long-model-name", top={"models": f'["{LONG}"]'}, words=("c.toml", "models")),
    Case("model-name-in-another-unicode-form", raw=(
        b'dataset = "./letor"\nmodels = ["random", "cafe\\u0301"]\nseeds = [0]\nquick = true\n'
        b'crosscheck = false\n[custom_models."caf\\u00e9"]\nfactory = "x:Y"\n'),
        words=("c.toml", "models", "U+0301", "ASCII")),
]

#: The longest error line a case may print (a 200,000-character value must not be echoed).
MAX_LINE = 2_000


def problem(case: Case, tmp: Path) -> str | None:
    """None when ``ltrbench run --config c.toml ARGS`` refused ``case`` as the module doc says."""
    from test_hostile_config import _text

    for folder in ("letor", "other"):
        (tmp / folder).mkdir(exist_ok=True)
        for split, data in SPLITS.items():
            (tmp / folder / f"{split}.txt").write_bytes(data)
    (tmp / "c.toml").write_bytes(_text(case))
    res = cli(tmp, "run", "--config", "c.toml", "--no-progress", "--out", "res", *case.args)
    trained = (tmp / "res" / "runs").is_dir() and any((tmp / "res" / "runs").iterdir())
    longest = max((len(ln) for ln in res.err.splitlines()), default=0)
    return refused(res, *case.words) or ("a run folder was written" if trained else None) or (
        f"an error line of {longest:,} characters" if longest > MAX_LINE else None)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_config_round9(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


def test_catboost_max_depth_0_is_no_limit_not_a_one_leaf_tree() -> None:
    """``max_depth = 0`` means no limit (LightGBM ``<= 0``, XGBoost ``0``); CatBoost's own
    ``depth = 0`` grows trees of one leaf (probed: 20 rounds, one distinct prediction), so it
    becomes CatBoost's deepest, 16, as -1 does."""
    assert catboost_params(Params(max_depth=0), "yetirank")["depth"] == 16
    assert catboost_params(Params(max_depth=-1), "yetirank")["depth"] == 16
    assert catboost_params(Params(max_depth=5), "yetirank")["depth"] == 5


if __name__ == "__main__":  # counts (each case in a forked child: a crash is a failure)
    from round9_kit import count_forked

    count_forked(CASES, problem)
