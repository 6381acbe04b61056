"""Hostile ``ltrbench tune`` cases, round 9 (issue 19, classes "silent accepts" and "configs"),
beyond ``tests/test_hostile_tune_round7.py`` and ``tests/test_hostile_round8b_space.py``.

New here: a ``--space`` table that applies to no tuned model (a library that is not tuned, or a
library table every tuned model of which has its own model table) was ignored without a word;
a dimension beside the same parameter fixed in the config's ``[model_params.<model>]``; a bound a library's own limit refuses (CatBoost's
``max_depth`` past 16); budgets of zero; ``--cv`` beside ``--use``.

Each case gets a fresh folder (``./letor``, a small LETOR dataset) and runs ``ltrbench tune``
in-process with every fit replaced by an error (:func:`hostile_cases_tune.tune`): a refusal
must exit 2 with one ``error:`` line holding the words, before any fit, and write no tune
folder. ``python tests/test_hostile_round9_tune.py`` prints the counts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import refused


@dataclass(frozen=True)
class Case:
    """``tune ARGS`` with ``space`` as ``space.toml`` and ``config`` as ``c.toml`` (when
    given); ``words`` must be in the error line."""

    name: str
    args: tuple[str, ...]
    words: tuple[str, ...]
    space: str | None = None
    config: str | None = None


LGB = ("--model", "lightgbm-lambdarank")
BASE = 'dataset = "./letor"\nquick = true\n'

CASES: list[Case] = [
    # ------------------------------------------------------------ fixed in round 9
    Case("space-table-of-a-library-not-tuned", LGB,
         ("space.toml", "[xgboost]", "not tuned", "lightgbm-lambdarank"),
         space="[lightgbm]\nnum_leaves = {low = 3, high = 7}\n"
               "[xgboost]\nnum_leaves = {low = 3, high = 7}\n"),
    Case("space-library-table-under-a-model-table", LGB,
         ("space.toml", "[lightgbm]", "[lightgbm-lambdarank]"),
         space="[lightgbm]\nnum_leaves = {low = 3, high = 7}\n"
               "[lightgbm-lambdarank]\nl2 = {low = 0.1, high = 1.0}\n"),
    Case("space-model-table-of-a-model-not-tuned", LGB,
         ("space.toml", "[lightgbm-xendcg]", "not tuned"),
         space="[lightgbm]\nnum_leaves = {low = 3, high = 7}\n"
               "[lightgbm-xendcg]\nnum_leaves = {low = 3, high = 7}\n"),
    Case("space-beside-a-fixed-model-param", ("--config", "c.toml", *LGB),
         ("num_leaves", "[model_params.lightgbm-lambdarank]"),
         space="[lightgbm]\nnum_leaves = {low = 3, high = 7}\n",
         config=BASE + "[model_params.lightgbm-lambdarank]\nnum_leaves = 5\n"),
    Case("grid-beside-a-fixed-model-param",
         ("--config", "c.toml", *LGB, "--grid", "num_leaves=3,7"),
         ("num_leaves", "[model_params.lightgbm-lambdarank]"),
         config=BASE + "[model_params.lightgbm-lambdarank]\nnum_leaves = 5\n"),
    Case("catboost-space-max-depth-past-16", ("--model", "catboost-yetirank"),
         ("catboost-yetirank", "max_depth", "16"),
         space="[catboost]\nmax_depth = {low = 2, high = 20}\n"),
    Case("catboost-grid-max-depth-17", ("--model", "catboost-yetirank", "--grid",
                                        "max_depth=4,17"), ("max_depth", "16")),
    Case("space-n-threads-via-raw-alias", LGB, ("lightgbm.n_jobs", "--threads"),
         space='[lightgbm]\n"lightgbm.n_jobs" = {low = 1, high = 4}\n'),
    Case("declared-space-beside-a-fixed-raw-key", ("--config", "c.toml", "--model",
                                                    "xgboost-ndcg"),
         ("xgboost.lambdarank_pair_method", "[model_params.xgboost-ndcg]"),
         config=BASE + '[model_params.xgboost-ndcg.xgboost]\nlambdarank_pair_method = "mean"\n'),
    # ------------------------------------------------------------ held before, kept held
    Case("budget-trials-zero", (*LGB, "--budget-trials", "0"), ("--budget-trials",)),
    Case("budget-cpu-zero", (*LGB, "--budget-cpu-s", "0"), ("--budget-cpu-s",)),
    Case("cv-one", (*LGB, "--cv", "1"), ("--cv",)),
]


def problem(case: Case, tmp: Path) -> str | None:
    """None when ``case`` was refused before any fit, as the module doc says."""
    if case.space is not None:
        (tmp / "space.toml").write_text(case.space, encoding="utf-8")
    if case.config is not None:
        (tmp / "c.toml").write_text(case.config, encoding="utf-8")
    elif "c.toml" in case.args:
        (tmp / "c.toml").write_text(BASE + "seeds = [1, 2]\n", encoding="utf-8")
    args = [*case.args, *(("--space", "space.toml") if case.space is not None else ())]
    if "--budget-trials" not in args and "--budget-cpu-s" not in args and "--grid" not in args:
        args += ["--budget-trials", "1"]
    res = tune(tmp, *args)
    bad = refused(res, *case.words)
    written = (tmp / "res" / "tune").exists() and any((tmp / "res" / "tune").iterdir())
    return bad or ("wrote a tune folder" if written else None)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_tune_round9(case: Case, tmp_path: Path) -> None:
    assert problem(case, tmp_path) is None


if __name__ == "__main__":  # counts (each case in a forked child: a crash is a failure)
    from round9_kit import count_forked

    count_forked(CASES, problem)
