"""Hostile search spaces of ``ltrbench tune``, round 8b (issue 19: configs, silent accepts).

New here: a ``--space`` file's raw ``<library>.<key>`` dimensions were never shown to the
library before the tune: a range the library refuses (``lightgbm.min_data_in_bin`` from -5 to -1), a
key it does not know (``lightgbm.num_leavs``), a key ltrbench sets itself (``objective``,
``metric``, ``eval_at``, ``seed``, ``num_threads``, ``device_type``), a choice of the wrong type,
or another name of a parameter ltrbench tunes under its own name (``lightgbm.max_leaves``
beside ``num_leaves``) each made every trial fail, and ``tune`` exited 0 with "no complete
trial" and a ``best.toml`` of nothing. Now each is refused before any data is read, naming the
model, the dimension and the value. A ``--grid`` of many values per parameter was checked for
repeats pair by pair (8,000 values: 15 s; every ``num_leaves`` from 2 to 131,072: hours before
anything was said); now at most 10,000 values, as in a ``--space`` file. A ``--grid`` value
was read by TOML's rules (``num_leaves=0x10`` the grid point 16, where ``--seeds 0x1`` is
refused), and the Python grid checker :func:`bench.benchmark.tune.check_space` ended in an
``AttributeError`` for a key that is not a string or a space that is not a mapping, and
refused the NumPy integers that ``bench.benchmark.run`` takes. Beside them, instances of the same class that already held
(log ranges from 0, empty ranges, ``step``, float bounds of an integer, repeated keys or tables,
``--grid`` spellings), kept so they stay held.

Each case runs ``ltrbench tune --space FILE`` (or ``--grid``) in-process on the synthetic data
(:func:`hostile_kit.cli`); a refusal must exit 2 with one ``error:`` line holding the words, and
no tune folder is written. ``python tests/test_hostile_round8b_space.py`` prints the counts.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import api_refused, call, cli, refused

LGB = ("--model", "lightgbm-lambdarank")
XGB = ("--model", "xgboost-ndcg")
CAT = ("--model", "catboost-yetirank")

#: name -> (model arguments, the --space text or None, --grid or None, words, fixed in 8b)
CASES: dict[str, tuple[tuple[str, ...], str | None, str | None, tuple[str, ...], bool]] = {
    # ------------------------------------------------------------- fixed in round 8b
    "raw-range-the-library-refuses": (
        LGB, '[lightgbm]\n"lightgbm.min_data_in_bin" = {low = -5, high = -1}\n', None,
        ("lightgbm-lambdarank", "lightgbm.min_data_in_bin = -5", "min_data_in_bin"), True),
    "raw-key-the-library-does-not-know": (
        LGB, '[lightgbm]\n"lightgbm.num_leavs" = {low = 2, high = 8}\n', None,
        ("lightgbm.num_leavs", "num_leaves"), True),
    "raw-objective-choices": (
        LGB, '[lightgbm]\n"lightgbm.objective" = {choices = ["regression", "lambdarank"]}\n',
        None, ("lightgbm.objective", "ltrbench sets it itself", "model name"), True),
    "raw-metric-choice": (LGB, '[lightgbm]\n"lightgbm.metric" = {choices = ["map"]}\n', None,
                          ("lightgbm.metric", "select_metric"), True),
    "raw-eval-at-choices": (LGB, '[lightgbm]\n"lightgbm.eval_at" = {choices = [1, 5]}\n', None,
                            ("lightgbm.eval_at", "eval_at"), True),
    "raw-num-threads-range": (LGB, '[lightgbm]\n"lightgbm.num_threads" = {low = 1, high = 4}\n',
                              None, ("lightgbm.num_threads", "--threads"), True),
    "raw-seed-range": (LGB, '[lightgbm]\n"lightgbm.seed" = {low = 1, high = 5}\n', None,
                       ("lightgbm.seed", "seeds"), True),
    "raw-device-type-choices": (
        LGB, '[lightgbm]\n"lightgbm.device_type" = {choices = ["cpu", "cuda"]}\n', None,
        ("lightgbm.device_type", "--device"), True),
    "raw-choices-of-mixed-types": (
        LGB, '[lightgbm]\n"lightgbm.min_data_in_bin" = {choices = [3, "x"]}\n', None,
        ("lightgbm.min_data_in_bin = 'x'", "lightgbm refuses"), True),
    "raw-num-leaves-beside-ltrbench-s": (
        LGB, '[lightgbm]\n"lightgbm.num_leaves" = {low = 2, high = 8}\n', None,
        ("lightgbm.num_leaves", "ltrbench's num_leaves"), True),
    "raw-max-leaves-alias-beside-num-leaves": (
        LGB, '[lightgbm]\nnum_leaves = {low = 4, high = 8}\n'
        '"lightgbm.max_leaves" = {low = 2, high = 8}\n', None,
        ("lightgbm.max_leaves", "ltrbench's num_leaves"), True),
    "raw-num-iterations-range": (
        LGB, '[lightgbm]\n"lightgbm.num_iterations" = {low = 2, high = 8}\n', None,
        ("lightgbm.num_iterations", "n_trees"), True),
    "xgboost-raw-eta-range": (
        XGB, '[xgboost]\n"xgboost.eta" = {low = 0.01, high = 0.3, log = true}\n', None,
        ("xgboost-ndcg", "xgboost.eta", "learning_rate"), True),
    "xgboost-raw-key-it-does-not-use": (
        XGB, '[xgboost]\n"xgboost.nosuch" = {low = 1, high = 3}\n', None,
        ("xgboost.nosuch", "xgboost refuses"), True),
    "catboost-raw-depth-beside-max-depth": (
        CAT, '[catboost]\n"catboost.depth" = {low = 2, high = 6}\n', None,
        ("catboost-yetirank", "catboost.depth", "max_depth"), True),
    "grid-of-10001-values": (  # the repeat check was quadratic: 8,000 values took 15 s,
        LGB, None, "num_leaves=" + ",".join(str(v) for v in range(2, 10_003)),  # 131,071 hours
        ("--grid num_leaves", "10,001 values", "at most 10,000"), True),
    "grid-a-hex-integer": (LGB, None, "num_leaves=0x10", ("--grid num_leaves", "'0x10'"), True),
    "grid-an-integer-with-an-underscore": (LGB, None, "num_leaves=1_5",
                                           ("--grid num_leaves", "'1_5'"), True),
    "grid-an-empty-name": (LGB, None, "=7", ("--grid", "''", "not a name"), True),
    # ------------------------------------------------------------- held before, kept held
    "log-range-from-zero": (LGB, "[lightgbm]\nl1 = {low = 0.0, high = 1.0, log = true}\n", None,
                            ("l1", "log range needs low > 0"), False),
    "low-above-high": (LGB, "[lightgbm]\nnum_leaves = {low = 63, high = 7}\n", None,
                       ("num_leaves", "empty range"), False),
    "a-step-key": (LGB, "[lightgbm]\nnum_leaves = {low = 4, high = 8, step = 3}\n", None,
                   ("num_leaves", "step"), False),
    "integer-parameter-float-bounds": (LGB, "[lightgbm]\nnum_leaves = {low = 7.5, high = 9}\n",
                                       None, ("num_leaves", "integer"), False),
    "no-choices": (LGB, "[lightgbm]\nnum_leaves = {choices = []}\n", None,
                   ("num_leaves.choices", "non-empty"), False),
    "a-choice-repeated-as-int-and-float": (
        LGB, "[lightgbm]\nlearning_rate = {choices = [0.1, 1e-1]}\n", None,
        ("learning_rate.choices", "repeats"), False),
    "boolean-parameter-given-1": (LGB, "[lightgbm]\nlambdarank_norm = {choices = [true, 1]}\n",
                                  None, ("lambdarank_norm", "true or false"), False),
    "unknown-parameter": (LGB, "[lightgbm]\nnum_leaf = {low = 4, high = 8}\n", None,
                          ("num_leaf", "num_leaves"), False),
    "a-parameter-set-once-for-the-run": (LGB, "[lightgbm]\nseed = {low = 1, high = 3}\n", None,
                                         ("seed", "--seed"), False),
    "a-key-twice": (LGB, "[lightgbm]\nnum_leaves = {low = 4, high = 8}\n"
                    '"num_leaves" = {low = 4, high = 9}\n', None, ("line 3",), False),
    "a-table-twice": (LGB, "[lightgbm]\nnum_leaves = {low = 4, high = 8}\n[lightgbm]\n"
                      "max_bin = {low = 4, high = 8}\n", None, ("line 3",), False),
    "another-library-s-raw-key": (LGB, '[lightgbm]\n"catboost.depth" = {low = 2, high = 4}\n',
                                  None, ("catboost.depth", "lightgbm.<key>"), False),
    "grid-a-key-twice": (LGB, None, "num_leaves=7,15;num_leaves=31",
                         ("--grid", "num_leaves", "twice"), False),
    "grid-nan": (LGB, None, "learning_rate=nan", ("--grid", "learning_rate"), False),
    "grid-full-width-digit": (LGB, None, "num_leaves=７", ("--grid", "num_leaves"), False),
    "grid-a-raw-key": (LGB, None, "lightgbm.lambda_l1=1,2", ("--grid", "lightgbm.lambda_l1"),
                       False),
    "grid-the-device": (LGB, None, "device=cpu,cuda", ("--grid", "device"), False),
}


#: The Python grid checker (:func:`bench.benchmark.tune.check_space`): name -> (its argument,
#: words of the error, or None: accepted as the values it stands for), fixed in round 8b.
PYTHON: dict[str, tuple[object, tuple[str, ...] | None, bool]] = {
    "an-integer-key": ({1: [2]}, ("--grid", "1 (an integer)", "not a name"), True),
    "a-none-key": ({None: [2]}, ("--grid", "None", "not a name"), True),
    "a-string-not-a-mapping": ("num_leaves=7", ("--grid", "mapping"), True),
    "a-list-of-pairs": ([("num_leaves", [7])], ("--grid", "mapping"), True),
    "numpy-integers": ({"num_leaves": [np.int64(7), np.int64(15)]}, None, True),
    "a-numpy-array": ({"num_leaves": np.array([7, 15])}, None, True),
    "a-set-of-values": ({"num_leaves": {7, 15}}, ("--grid num_leaves", "list"), False),
    "a-string-of-values": ({"num_leaves": "7,15"}, ("--grid num_leaves", "list"), False),
}


def _python_case(name: str) -> str | None:
    from bench.benchmark.tune import check_space

    space, words, _ = PYTHON[name]
    value, exc = call(lambda: check_space(space))  # type: ignore[arg-type]
    if words is not None:
        return api_refused(exc, *words)
    if exc is not None:
        return f"refused: {type(exc).__name__}: {exc}"
    got = value["num_leaves"]
    return None if got == [7, 15] and all(type(v) is int for v in got) else f"got {got!r}"


@pytest.mark.parametrize("name", sorted(PYTHON))
def test_hostile_round8b_python_grid(name: str) -> None:
    problem = _python_case(name)
    assert problem is None, f"{name}: {problem}"


def _judge(name: str, tmp: Path) -> str | None:
    model, space, grid, words, _ = CASES[name]
    args = ["tune", "--dataset", "synthetic", "--quick", *model, "--budget-trials", "1",
            "--no-progress", "--out", str(tmp / "out")]
    if space is not None:
        (tmp / "space.toml").write_text(space, encoding="utf-8")
        args += ["--space", "space.toml"]
    if grid is not None:
        args += ["--grid", grid]
    problem = refused(cli(tmp, *args), *words)
    if problem is None and (tmp / "out" / "tune").exists():
        return "refused, but a tune folder was written"
    return problem


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_round8b_space(name: str, tmp_path: Path) -> None:
    problem = _judge(name, tmp_path)
    assert problem is None, f"{name}: {problem}"


if __name__ == "__main__":  # the counts (a case that is accepted trains one trial)
    failing = []
    for case in CASES:
        with tempfile.TemporaryDirectory() as folder:
            if _judge(case, Path(folder)) is not None:
                failing.append(case)
    failing += [case for case in PYTHON if _python_case(case) is not None]
    print(f"{len(CASES) + len(PYTHON)} cases, {len(failing)} failing: {', '.join(failing)}")
