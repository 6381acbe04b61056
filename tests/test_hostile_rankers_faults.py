"""Hostile custom rankers, custom-model config errors and faults during a run (issue 19).

Three catalogues, each of new instances of the classes of ``tests/test_hostile_rankers.py``,
``tests/test_hostile_config.py`` and ``tests/hostile_cases_*.py``:

1. **Rankers** (user code, :mod:`bench.runners.custom`): a factory or ranker that is not one
   (a function, a module, a ``fit`` that is an attribute, a generator or coroutine ``fit`` whose
   body never runs), ``predict`` outputs not yet tried (a tuple, a 0-d array, a nullable pandas
   column with a missing value, a categorical, ``-inf``, ``None`` inside a list, a sparse
   column), and rankers that change the *process* they run in: the global random state, the
   working directory, the environment, ``sys.stdout``, ``SIGINT``, the umask, a thread or a
   finaliser that writes into the data after the custom model is done, output on stdout in a
   ``--format json`` run. Each is a clear error naming the ranker, or the models after it give
   the numbers of a run without it (checked against that run).
2. **Custom-model config errors**: every error about a ``[custom_models.<name>]`` table names the
   config file, the key as the file spells it (``[custom_models.mine] factory``) and what was
   expected, also when it is only found when the factory is called (before any data).
3. **Faults during a run**: Ctrl-C in a slow ranker, a crash and ``--resume``, damaged or
   truncated run files met by ``--resume`` and ``report``, a run file or the run folder
   vanishing mid-run, ``--out`` that is a file: one clear line, nothing already written lost.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fault_rankers import Gives
from hostile_kit import ROOT, Res, cli, letor_folder, refused, toy_splits

from bench.data.letor import LetorSplits
from bench.errors import ConfigError, LtrbenchError
from bench.runners.custom import custom_model, train_custom

NAME = "hostile"


@pytest.fixture
def splits() -> LetorSplits:
    return toy_splits()


def _train(splits: LetorSplits, factory: str) -> Any:
    return train_custom(custom_model(NAME, f"fault_rankers:{factory}"), splits, seed=0)


# =============================================================== 1. rankers, in Python
@pytest.mark.parametrize(("factory", "words"), [
    ("returns_function", ("function", "no fit and no predict")),
    ("returns_module", ("module", "no fit and no predict")),
    ("FitNotCallable", ("no fit method",)),
    ("PredictNotCallable", ("no predict method",)),
    ("GeneratorFit", ("fit", "generator", "never ran")),
    ("AsyncFit", ("fit", "coroutine", "never ran")),
    ("RaisesBaseException", ("fit raised GeneratorExit",)),
    ("RaisesRecursion", ("predict raised RecursionError",)),
    ("RaisesMemoryError", ("fit raised MemoryError",)),
])
def test_a_ranker_that_is_no_ranker_or_never_fits_is_a_clear_error(splits, factory, words):
    with pytest.raises(LtrbenchError) as err:
        _train(splits, factory)
    text = str(err.value)
    assert f"'{NAME}'" in text, text
    for word in words:
        assert word in text, text


BAD_OUTPUTS: dict[str, tuple[Any, str]] = {
    "minus inf": (lambda X: np.r_[-np.inf, X[1:, 0]], r"finite"),
    "0-d array": (lambda X: np.ones(()), r"shape \(\)"),
    "numpy float scalar": (lambda X: np.float64(1.0), r"float64"),
    "numpy int scalar": (lambda X: np.int64(3), r"int64|shape \(\)"),
    "list with a None": (lambda X: [None] + [float(v) for v in X[1:, 0]], r"None|object|finite"),
    "list of strings": (lambda X: [str(float(v)) for v in X[:, 0]], r"str"),
    "list of lists": (lambda X: [[float(v)] for v in X[:, 0]], r"shape \(\d+, 1\)"),
    "ragged": (lambda X: [[1.0, 2.0], [3.0]] + [[0.0]] * (X.shape[0] - 2), r"not an array|object"),
    "nullable Int64 with NA": (lambda X: pd.Series([pd.NA] + [1] * (X.shape[0] - 1),
                                                   dtype="Int64"), r"missing|NA|finite|object"),
    "categorical": (lambda X: pd.Series(pd.Categorical(["a"] * X.shape[0])), r"categor|str|object"),
    "string dtype": (lambda X: pd.Series(["1"] * X.shape[0], dtype="string"), r"str|object"),
    "series, multi-index": (lambda X: pd.Series(X[:, 0], index=pd.MultiIndex.from_arrays(
        [np.zeros(X.shape[0], dtype=int), np.arange(X.shape[0])])), r"index"),
    "series, repeated index": (lambda X: pd.Series(X[:, 0], index=np.zeros(X.shape[0], dtype=int)),
                               r"index"),
    "sparse column": (lambda X: __import__("scipy.sparse").sparse.csr_matrix(X[:, :1]),
                      r"sparse|object|shape"),
    "map object": (lambda X: map(float, X[:, 0]), r"map"),
    "set": (lambda X: set(range(X.shape[0])), r"set"),
    "bytes buffer": (lambda X: np.zeros(X.shape[0]).tobytes(), r"bytes"),
    "object array of Decimals": (lambda X: np.array([__import__("decimal").Decimal("0.1")]
                                                    * X.shape[0], dtype=object), r"object"),
    "float16 infinity": (lambda X: np.full(X.shape[0], np.inf, dtype=np.float16), r"finite"),
}


@pytest.mark.parametrize("case", list(BAD_OUTPUTS))
def test_more_predict_outputs_that_are_not_one_finite_score_per_row(splits, case, monkeypatch):
    make, message = BAD_OUTPUTS[case]
    monkeypatch.setattr(Gives, "make", staticmethod(make))
    with pytest.raises(LtrbenchError, match=rf"'{NAME}'.*predict.*({message})"):
        _train(splits, "Gives")


GOOD_OUTPUTS: dict[str, Any] = {
    "tuple": lambda X: tuple(float(v) for v in X[:, 0]),
    "range": lambda X: range(X.shape[0]),
    "float16 scores": lambda X: np.asarray(X[:, 0], dtype=np.float16),
    "int8": lambda X: (X[:, 0] > 0).astype(np.int8),
    "read-only view of its input": lambda X: X[:, 0],
    "nullable Float64 without NA": lambda X: pd.Series(X[:, 0], dtype="Float64"),
}


@pytest.mark.parametrize("case", list(GOOD_OUTPUTS))
def test_more_usable_predict_outputs_give_their_numbers(splits, case, monkeypatch):
    make = GOOD_OUTPUTS[case]
    monkeypatch.setattr(Gives, "make", staticmethod(make))
    result = _train(splits, "Gives")
    for split in ("vali", "test"):
        X = getattr(splits, split).X
        want = np.asarray(pd.array(make(X.copy())).to_numpy(dtype=np.float64)
                          if "Float64" in case else np.asarray(make(X.copy())), dtype=np.float64)
        np.testing.assert_array_equal(result.scores[split], want)
        assert result.scores[split].flags.writeable


def test_a_thread_that_raises_in_the_ranker_leaves_the_data_as_it_was(splits):
    before = splits.train.X.copy()
    _train(splits, "ThreadRaises")
    np.testing.assert_array_equal(splits.train.X, before)


@pytest.mark.parametrize("factory", ["ThreadWritesLater", "FinaliserWrites"])
def test_a_write_left_behind_after_the_custom_model_is_caught_before_the_next_model(
        splits, factory):
    """A thread or ``__del__`` that writes into the data once the custom model is done (the
    arrays writeable again): the next model refuses to train on the changed data."""
    import gc

    from bench.runners.custom import CustomModelTampered
    from bench.runners.dispatch import run_model
    from bench.runners.params import Params

    _train(splits, factory)
    gc.collect()
    deadline = time.time() + 20
    while time.time() < deadline and splits.train.y.any():
        time.sleep(0.05)
    with pytest.raises(CustomModelTampered, match=rf"'{NAME}'"):
        run_model("random", splits, Params(n_trees=5, seed=0, n_threads=1), seed=0)


# ======================================================= 2. custom models in a config file
def _module(tmp: Path, body: str, name: str | None = None) -> str:
    """A module of ``body`` in ``tmp`` (on ``sys.path``); returns its name."""
    mod = name or f"ranker_{abs(hash((str(tmp), body))):x}"
    (tmp / f"{mod}.py").write_text(body)
    return mod


RANKER = ("import numpy as np\n"
          "class R:\n"
          "    def __init__(self, seed=0):\n        self.seed = seed\n"
          "    def fit(self, X, y, group=None, **kw):\n        return self\n"
          "    def predict(self, X):\n        return np.asarray(X[:, 0], dtype=float)\n")


def _run(tmp: Path, *argv: str) -> Res:
    letor_folder(tmp / "letor")
    return cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
               "--no-crosscheck", "--seeds", "0", *argv)


def _config_case(tmp: Path, monkeypatch: pytest.MonkeyPatch, table: str, *words: str,
                 models: str = "mine") -> str | None:
    monkeypatch.syspath_prepend(str(tmp))
    (tmp / "c.toml").write_text(table)
    res = _run(tmp, "--config", "c.toml", "--models", models, "--out", "res")
    verdict = refused(res, "c.toml", *words)
    if verdict is None and (tmp / "res" / "runs").exists() and any((tmp / "res/runs").iterdir()):
        return "a run folder was made before the config error"
    return verdict


CONFIG_CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "factory raises when called": (
        "raise_in_call", ("[custom_models.mine] factory", "RuntimeError", "boom")),
    "factory returns None": ("returns_none", ("[custom_models.mine] factory", "NoneType",
                                              "fit(X, y, group=...)")),
    "factory needs an argument": ("NeedsArgument", ("[custom_models.mine]", "depth")),
    "fit takes no groups": ("NoGroups", ("[custom_models.mine] factory", "group")),
    "factory returns a class": ("returns_class", ("[custom_models.mine] factory", "class")),
    "attribute missing": ("Nope", ("[custom_models.mine] factory", "no attribute 'Nope'")),
    "params the factory does not take": ("Strict", ("[custom_models.mine] factory", "alpha")),
    "factory prints and exits": ("exits_in_call", ("[custom_models.mine] factory", "sys.exit")),
}
_BODIES = {
    "raise_in_call": RANKER + "def raise_in_call(seed=0):\n    raise RuntimeError('boom')\n",
    "returns_none": RANKER + "def returns_none(seed=0):\n    return None\n",
    "NeedsArgument": RANKER + "class NeedsArgument(R):\n    def __init__(self, depth, seed=0):\n"
                              "        self.depth = depth\n",
    "NoGroups": RANKER + "class NoGroups(R):\n    def fit(self, X, y):\n        return self\n",
    "returns_class": RANKER + "def returns_class(seed=0):\n    return R\n",
    "Nope": RANKER,
    "Strict": RANKER + "class Strict(R):\n    pass\n",
    "exits_in_call": RANKER + "import sys\ndef exits_in_call(seed=0):\n    print('bye')\n"
                              "    sys.exit(0)\n",
}


@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_a_custom_model_error_names_the_config_file_and_key(case, tmp_path, monkeypatch):
    attr, words = CONFIG_CASES[case]
    mod = _module(tmp_path, _BODIES[attr])
    table = f'[custom_models.mine]\nfactory = "{mod}:{attr}"\n'
    if attr == "Strict":
        table += "params = { alpha = 0.1 }\n"
    assert _config_case(tmp_path, monkeypatch, table, *words) is None


TABLE_CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "factory with ..": ('[custom_models.mine]\nfactory = "..rankers:R"\n',
                        ("[custom_models.mine] factory", "package.module:attribute")),
    "factory as a file path": ('[custom_models.mine]\nfactory = "./rankers.py:R"\n',
                               ("[custom_models.mine] factory", "package.module:attribute")),
    "factory an integer": ('[custom_models.mine]\nfactory = 5\n',
                           ("[custom_models.mine] factory", "package.module:attribute")),
    "factory empty": ('[custom_models.mine]\nfactory = ""\n',
                      ("[custom_models.mine] factory", "package.module:attribute")),
    "misspelt factory key": ('[custom_models.mine]\nfactroy = "x:R"\n',
                             ("[custom_models.mine] factroy", "did you mean 'factory'")),
    "no factory": ('[custom_models.mine]\nparams = {}\n',
                   ("[custom_models.mine]", "factory")),
    "params not a table": ('[custom_models.mine]\nfactory = "MOD:R"\nparams = 5\n',
                           ("[custom_models.mine] params", "a table")),
    "params set the seed": ('[custom_models.mine]\nfactory = "MOD:R"\nparams = { seed = 3 }\n',
                            ("[custom_models.mine] params", "seed")),
    "entry not a table": ('[custom_models]\nmine = 5\n', ("[custom_models] mine", "factory")),
    "custom_models not a table": ('custom_models = 5\n', ("custom_models", "a table")),
    "params with a date": ('[custom_models.mine]\nfactory = "MOD:R"\nparams = { when = 2024-01-01 }\n',
                           ("[custom_models.mine] params.when", "strings, numbers")),
    "params with a null-like empty key": ('[custom_models.mine]\nfactory = "MOD:R"\nparams = { "" = 1 }\n',
                                          ("[custom_models.mine]",)),
    "name of a built-in model": ('[custom_models.lightgbm-lambdarank]\nfactory = "MOD:R"\n',
                                 ("[custom_models.lightgbm-lambdarank]", "built-in")),
    "name with a slash": ('[custom_models."a/b"]\nfactory = "MOD:R"\n',
                          ("[custom_models.\"a/b\"]", "letters")),
    "name with a space": ('[custom_models."my model"]\nfactory = "MOD:R"\n',
                          ("[custom_models.\"my model\"]", "letters")),
    "name with unicode": ('[custom_models."modèle"]\nfactory = "MOD:R"\n',
                          ("modèle", "letters")),
    "name too long for a file": (f'[custom_models.{"m" * 250}]\nfactory = "MOD:R"\n',
                                 ("[custom_models.mmm", "characters")),
    "name is a built-in in other case": ('[custom_models.Random]\nfactory = "MOD:R"\n',
                                         ("[custom_models.Random]", "only in case", "'random'")),
    "two names differing in case": ('[custom_models.mine]\nfactory = "MOD:R"\n'
                                    '[custom_models.MINE]\nfactory = "MOD:R"\n',
                                    ("[custom_models.mine] and [custom_models.MINE]",
                                     "only in case")),
    "name is a built-in": ('[custom_models.random]\nfactory = "MOD:R"\n',
                           ("[custom_models.random]", "built-in")),
    "module import raises": ('[custom_models.mine]\nfactory = "BROKEN:R"\n',
                             ("[custom_models.mine] factory", "ZeroDivisionError")),
    "module syntax error": ('[custom_models.mine]\nfactory = "SYNTAX:R"\n',
                            ("[custom_models.mine] factory", "SyntaxError", "line 2")),
    "module exits at import": ('[custom_models.mine]\nfactory = "EXITS:R"\n',
                               ("[custom_models.mine] factory", "sys.exit")),
    "module named like the stdlib": ('[custom_models.mine]\nfactory = "json:R"\n',
                                     ("[custom_models.mine] factory", "no attribute 'R'",
                                      "json/__init__.py")),
    "module named bench": ('[custom_models.mine]\nfactory = "bench:R"\n',
                           ("[custom_models.mine] factory", "no attribute 'R'", "bench")),
}


@pytest.mark.parametrize("case", list(TABLE_CASES))
def test_a_custom_models_table_error_names_the_config_file_and_key(case, tmp_path, monkeypatch):
    table, words = TABLE_CASES[case]
    mod = _module(tmp_path, RANKER)
    broken = _module(tmp_path, "x = 1 / 0\n", name=f"{mod}_broken")
    syntax = _module(tmp_path, "x = 1\ndef (:\n", name=f"{mod}_syntax")
    exits = _module(tmp_path, "import sys\nsys.exit(0)\n", name=f"{mod}_exits")
    (tmp_path / "json.py").write_text(RANKER)  # a user's json.py, shadowed by the stdlib's
    table = (table.replace("BROKEN", broken).replace("SYNTAX", syntax)
             .replace("EXITS", exits).replace("MOD", mod))
    models = "random"
    if table.startswith("[custom_models."):
        models = table.split("[custom_models.", 1)[1].split("]\n", 1)[0].strip('"')
    assert _config_case(tmp_path, monkeypatch, table, *words, models=models) is None


# ================================================= isolation: the models after a custom one
@pytest.fixture(scope="module")
def lightgbm_alone(tmp_path_factory: pytest.TempPathFactory) -> float:
    tmp = tmp_path_factory.mktemp("alone")
    res = _run(tmp, "--models", "lightgbm,random", "--out", "res", "--format", "json")
    assert res.status == 0, res.err
    return _metrics(tmp / "res")


def _metrics(out: Path) -> Any:
    files = list(out.glob("runs/*/metrics.csv"))
    assert len(files) == 1, files
    m = pd.read_csv(files[0])
    m = m[m.model != "mine"]
    return m.sort_values(["model", "split", "metric"])[["model", "split", "metric",
                                                       "value"]].reset_index(drop=True)


@pytest.mark.parametrize("factory", ["SeedsGlobalNumpy", "ChangesDirectory", "SetsEnvironment",
                                     "ReplacesStdout", "PrintsALot", "IgnoresSigint",
                                     "SetsUmask", "ThreadRaises"])
def test_a_ranker_that_changes_the_process_leaves_the_later_models_as_without_it(
        factory, tmp_path, monkeypatch, lightgbm_alone):
    (tmp_path / "c.toml").write_text(f'[custom_models.mine]\nfactory = "fault_rankers:{factory}"\n')
    saved = (os.getcwd(), dict(os.environ), signal.getsignal(signal.SIGINT), sys.stdout)
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        res = _run(tmp_path, "--config", "c.toml", "--models", "mine,lightgbm,random",
                   "--out", "res", "--format", "json")  # relative: a chdir would move it
        after = (os.getcwd(), dict(os.environ), signal.getsignal(signal.SIGINT), sys.stdout)
        mask_after = os.umask(umask)
    finally:
        os.chdir(saved[0])
        os.environ.clear()
        os.environ.update(saved[1])
        signal.signal(signal.SIGINT, saved[2])
        sys.stdout = saved[3]
        os.umask(umask)
    assert "Traceback" not in res.err, res.err
    assert res.status == 0, res.err
    assert json.loads(res.out)["run_id"], res.out  # stdout is the JSON summary only
    assert after == saved, "the ranker's change to the process outlived it"
    assert mask_after == umask
    pd.testing.assert_frame_equal(_metrics(tmp_path / "res"), lightgbm_alone)
    for f in (tmp_path / "res").rglob("*"):
        assert os.access(f, os.R_OK), f"{f} is unreadable"


@pytest.mark.parametrize("factory", ["ThreadWritesLater", "FinaliserWrites"])
def test_a_ranker_that_writes_after_it_is_done_stops_the_run_naming_it(factory, tmp_path):
    (tmp_path / "c.toml").write_text(f'[custom_models.mine]\nfactory = "fault_rankers:{factory}"\n')
    res = _run(tmp_path, "--config", "c.toml", "--models", "mine,random,lightgbm",
               "--out", "res", "--format", "json")
    if res.status == 0:  # the write came too late for this run: nothing was changed before
        return
    assert refused(res, "'mine'", "modified") is None, res.err


# ============================================================ 3. faults during a run
def _sub(tmp: Path, *argv: str, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", *argv], cwd=tmp, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, preexec_fn=_ctrl_c_as_in_a_terminal,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}", **(env or {})})


def _ctrl_c_as_in_a_terminal() -> None:
    """The child's SIGINT as a terminal gives it (Python turns it into KeyboardInterrupt): a
    test session started in the background inherits SIGINT ignored (POSIX: a non-interactive
    shell's ``&``), and then no Ctrl-C reaches the run (found: exit 0 instead of 130 in CI)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


RUN_ARGS = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
            "--no-crosscheck", "--seeds", "0", "--out", "res", "--config", "c.toml")


def test_ctrl_c_in_a_slow_ranker_keeps_what_was_written_and_resume_finishes(tmp_path,
                                                                           monkeypatch):
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('[custom_models.slow]\nfactory = "fault_rankers:Slow"\n')
    marker = tmp_path / "fitting"
    p = _sub(tmp_path, *RUN_ARGS, "--models", "random,slow,lightgbm",
             env={"FAULT_RANKER_MARKER": str(marker)})
    # Conditions, not durations: the slow fit has begun (its marker), then the run has ended.
    # The bounds only keep a hung run from hanging the session: on two busy cores the start
    # (imports, data, the first model) took more than the 240 s this wait once allowed.
    deadline = time.monotonic() + 1200
    while not marker.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.1)
    assert marker.exists(), p.communicate()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=1200)
    assert p.returncode == -signal.SIGINT, err  # ended by SIGINT (the shell says 130)
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    run = next((tmp_path / "res/runs").iterdir())
    assert (run / "status/random-seed0.json").is_file()
    assert not (run / ".writer.lock").exists()
    first = pd.read_csv(run / "metrics.csv")
    # the resume in-process (only the interrupted run needs a process of its own)
    monkeypatch.setenv("FAULT_RANKER_FAST", "1")
    res = cli(tmp_path, *RUN_ARGS, "--models", "random,slow,lightgbm", "--resume")
    assert res.status == 0, res.err
    assert [d.name for d in (tmp_path / "res/runs").iterdir()] == [run.name]
    metrics = pd.read_csv(run / "metrics.csv")
    assert set(metrics.model) == {"random", "slow", "lightgbm-lambdarank"}
    kept = metrics[metrics.model == "random"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, first[first.model == "random"].reset_index(drop=True))
    assert not metrics.duplicated(["model", "seed", "split", "metric"]).any()


def test_a_ranker_that_raises_keyboardinterrupt_stops_the_run_as_ctrl_c_does(tmp_path):
    (tmp_path / "c.toml").write_text(
        '[custom_models.mine]\nfactory = "fault_rankers:RaisesKeyboardInterrupt"\n')
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res")
    assert res.status == 130, res.err
    assert "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    run = next((tmp_path / "res/runs").iterdir())
    assert (run / "status/random-seed0.json").is_file()
    assert "random" in set(pd.read_csv(run / "metrics.csv").model)


@pytest.mark.parametrize(("factory", "words"), [
    ("RaisesMultiLine", ("CUDA error | at kernel.cu:12 | out of memory", "seed 0")),
    ("multi_line_factory", ("first line | second line", "[custom_models.mine] factory")),
])
def test_a_multi_line_error_of_a_ranker_is_one_line(factory, words, tmp_path):
    (tmp_path / "c.toml").write_text(f'[custom_models.mine]\nfactory = "fault_rankers:{factory}"\n')
    res = _run(tmp_path, "--config", "c.toml", "--models", "mine", "--out", "res")
    assert refused(res, "c.toml", "'mine'", *words) is None, res.err
    assert len(res.err.strip().splitlines()) == 1, res.err


def test_a_crash_in_a_custom_ranker_then_resume_loses_nothing(tmp_path, monkeypatch):
    (tmp_path / "c.toml").write_text(
        '[custom_models.mine]\nfactory = "fault_rankers:CrashesUnlessFixed"\n')
    monkeypatch.delenv("FAULT_RANKER_FIXED", raising=False)
    args = ("--config", "c.toml", "--models", "random,mine,lightgbm", "--out", "res")
    res = _run(tmp_path, *args)
    assert refused(res, "'mine'", "out of memory on the GPU", "res/runs") is None, res.err
    run = next((tmp_path / "res/runs").iterdir())
    before = pd.read_csv(run / "metrics.csv")
    assert set(before.model) == {"random", "lightgbm-lambdarank"}
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, *args, "--resume")
    assert res.status == 0, res.err
    after = pd.read_csv(run / "metrics.csv")
    assert set(after.model) == {"random", "mine", "lightgbm-lambdarank"}
    old = after[after.model != "mine"].reset_index(drop=True)
    pd.testing.assert_frame_equal(old, before.reset_index(drop=True))
    assert json.loads((run / "manifest.json").read_text())["finished"]


_EDITED_RANKER = """\
import os

import numpy as np


class Mine:
    def fit(self, X, y, *, group, **kwargs):
        if not os.environ.get("FAULT_RANKER_FIXED"):
            raise RuntimeError("out of memory on the GPU")
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0] * {factor}
"""


def test_resume_after_the_custom_rankers_code_changed_is_refused(tmp_path, monkeypatch):
    # the config hash names the factory, not its code: without the recorded digest the resumed
    # run would mix 'random' (old) with 'mine' of another version, exit 0
    monkeypatch.syspath_prepend(str(tmp_path))
    module = tmp_path / "edited_ranker_mod.py"
    module.write_text(_EDITED_RANKER.format(factor="1.0"))
    (tmp_path / "c.toml").write_text('[custom_models.mine]\nfactory = "edited_ranker_mod:Mine"\n')
    monkeypatch.delenv("FAULT_RANKER_FIXED", raising=False)
    args = ("--config", "c.toml", "--models", "random,mine", "--out", "res")
    assert _run(tmp_path, *args).status == 2
    run = next((tmp_path / "res/runs").iterdir())
    recorded = json.loads((run / "manifest.json").read_text())["models"]["mine"]
    assert len(recorded["source_sha256"]) == 64
    module.write_text(_EDITED_RANKER.format(factor="-1.0"))  # the user edits the code
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, *args, "--resume")
    assert refused(res, "custom model 'mine'", "source file changed", "start a new run") is None
    module.write_text(_EDITED_RANKER.format(factor="1.0"))  # put back as it was: resumes
    assert _run(tmp_path, *args, "--resume").status == 0


@pytest.fixture(scope="module")
def _interrupted_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of ``random`` and a crashing custom model, unfinished and resumable, made once for
    the module (its config, dataset and results folder); each case damages a copy of it."""
    tmp = tmp_path_factory.mktemp("interrupted")
    (tmp / "c.toml").write_text(
        '[custom_models.mine]\nfactory = "fault_rankers:CrashesUnlessFixed"\n')
    res = _run(tmp, "--config", "c.toml", "--models", "random,mine", "--out", "res")
    assert res.status == 2, res.err
    return tmp


@pytest.fixture
def interrupted_run(_interrupted_world: Path, tmp_path: Path) -> Path:
    """A copy, in this case's own folder, of the module's interrupted run: its run folder."""
    shutil.copytree(_interrupted_world, tmp_path, dirs_exist_ok=True, symlinks=True)
    return next((tmp_path / "res/runs").iterdir())


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])


def _set_field(path: Path, column: str, value: str) -> None:
    lines = path.read_text().splitlines()
    head = lines[0].split(",")
    row = lines[1].split(",")
    row[head.index(column)] = value
    path.write_text("\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n")


DAMAGE: dict[str, tuple[Any, str]] = {
    "metrics.csv truncated": (lambda r: _truncate(r / "metrics.csv"), "metrics.csv"),
    "metrics.csv empty": (lambda r: (r / "metrics.csv").write_bytes(b""), "metrics.csv"),
    "metrics.csv binary": (lambda r: (r / "metrics.csv").write_bytes(b"\x00\xff" * 50),
                           "metrics.csv"),
    "timings.csv with a text fit_s": (lambda r: _set_field(r / "timings.csv", "fit_s", "1.2.3"),
                                      "timings.csv"),
    "metrics.csv with an inf value": (lambda r: _set_field(r / "metrics.csv", "value", "inf"),
                                      "metrics.csv"),
    "per_query.parquet garbage": (lambda r: (r / "per_query.parquet").write_bytes(b"PAR1 no"),
                                  "per_query.parquet"),
    "scores.parquet truncated": (lambda r: _truncate(r / "scores.parquet"), "scores.parquet"),
    "manifest.json truncated": (lambda r: _truncate(r / "manifest.json"), "manifest.json"),
    "manifest.json a list": (lambda r: (r / "manifest.json").write_text("[]"), "manifest.json"),
    "manifest.json not UTF-8": (lambda r: (r / "manifest.json").write_bytes(b'{"a": "\xff"}'),
                                "manifest.json"),
    "status file truncated": (lambda r: _truncate(r / "status/random-seed0.json"),
                              "random-seed0.json"),
    "status file a list": (lambda r: (r / "status/random-seed0.json").write_text("[1]"),
                           "random-seed0.json"),
    "labels.parquet garbage": (lambda r: (r / "labels.parquet").write_bytes(b"nope"),
                               "labels.parquet"),
    "status folder is a file": (lambda r: (__import__("shutil").rmtree(r / "status"),
                                           (r / "status").write_text("x")), "status"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_resume_over_a_damaged_run_file_is_one_clear_line_naming_it(case, tmp_path,
                                                                    monkeypatch, interrupted_run):
    damage, named = DAMAGE[case]
    run = interrupted_run
    damage(run)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != "manifest.json"}
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res",
               "--resume", str(run))
    assert refused(res, named) is None, res.err
    for p, data in before.items():  # the damaged run is left as it was, for the user to see
        assert p.read_bytes() == data, f"{p} was rewritten"


@pytest.mark.parametrize("case", ["manifest.json truncated", "manifest.json a list",
                                  "manifest.json not UTF-8"])
def test_auto_resume_beside_a_damaged_manifest_is_no_traceback(case, tmp_path, monkeypatch,
                                                                interrupted_run):
    damage, named = DAMAGE[case]
    run = interrupted_run
    damage(run)
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res",
               "--resume")
    assert "Traceback" not in res.err, res.err
    assert res.status in (0, 2), res.err
    if res.status == 2:
        assert refused(res, named) is None
    else:
        assert named in res.err, f"the damaged run was passed over without a word: {res.err}"


@pytest.fixture(scope="module")
def finished_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of ``random`` and the custom model (fixed), made once for the module (its
    config, dataset and results folder); each report case damages a copy of it."""
    tmp = tmp_path_factory.mktemp("finished")
    (tmp / "c.toml").write_text(
        '[custom_models.mine]\nfactory = "fault_rankers:CrashesUnlessFixed"\n')
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAULT_RANKER_FIXED", "1")
        res = _run(tmp, "--config", "c.toml", "--models", "random,mine", "--out", "res")
    assert res.status == 0, res.err
    return tmp


@pytest.mark.parametrize("case", ["metrics.csv truncated", "status file truncated",
                                  "status file a list", "manifest.json not UTF-8",
                                  "scores.parquet truncated"])
def test_report_over_a_damaged_run_file_is_one_clear_line_naming_it(case, tmp_path,
                                                                    monkeypatch, finished_world):
    damage, named = DAMAGE[case]
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    shutil.copytree(finished_world, tmp_path, dirs_exist_ok=True, symlinks=True)
    run = next((tmp_path / "res/runs").iterdir())
    damage(run)
    res = cli(tmp_path, "report", "--runs", "res/runs", "--out", "rep", "--no-plots",
              "--no-progress")
    if res.status == 0:  # a file the report does not read
        assert named in ("scores.parquet", "random-seed0.json"), res.err
        return
    assert refused(res, named) is None, res.err


@pytest.mark.parametrize("vanish", ["res/runs/*/metrics.csv", "res/runs/*/per_query.parquet",
                                    "res/runs/*/status", "res/runs/*"])
def test_a_run_file_vanishing_mid_run_is_a_clear_error_not_a_silent_loss(vanish, tmp_path,
                                                                         monkeypatch):
    (tmp_path / "c.toml").write_text('[custom_models.mine]\nfactory = "fault_rankers:DeletesRunFile"\n')
    monkeypatch.setenv("FAULT_RANKER_DELETE", str(tmp_path / vanish))
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine,lightgbm",
               "--out", "res")
    assert "Traceback" not in res.err, res.err
    runs = list((tmp_path / "res/runs").glob("*/metrics.csv"))
    if res.status == 0:  # accepted only when nothing of the earlier pairs was lost
        metrics = pd.read_csv(runs[0])
        assert "random" in set(metrics.model), "random's rows were lost without a word"
        return
    assert res.status == 2, res.err
    assert len([ln for ln in res.err.strip().splitlines() if ln.startswith("error:")]) == 1
    assert "vanish" in res.err or "No such file" in res.err or "missing" in res.err, res.err


def test_out_that_is_a_file_is_refused_before_any_work(tmp_path):
    letor_folder(tmp_path / "letor")
    (tmp_path / "res").write_text("my notes")
    res = _run(tmp_path, "--models", "random", "--out", "res")
    assert refused(res, "res") is None, res.err
    assert (tmp_path / "res").read_text() == "my notes"


def test_out_under_a_file_is_refused_before_any_work(tmp_path):
    letor_folder(tmp_path / "letor")
    (tmp_path / "notes").write_text("my notes")
    res = _run(tmp_path, "--models", "random", "--out", "notes/res")
    assert refused(res, "notes") is None, res.err
    assert (tmp_path / "notes").read_text() == "my notes"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_out_in_a_read_only_folder_is_one_clear_line(tmp_path):
    letor_folder(tmp_path / "letor")
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    try:
        res = _run(tmp_path, "--models", "random", "--out", "ro/res")
    finally:
        (tmp_path / "ro").chmod(0o755)
    assert refused(res, "ro") is None, res.err


def test_a_run_lock_that_is_a_folder_is_one_clear_line(tmp_path, monkeypatch, interrupted_run):
    run = interrupted_run
    (run / ".writer.lock").mkdir()
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res",
               "--resume", str(run))
    assert refused(res, ".writer.lock") is None, res.err


def test_a_run_lock_that_is_a_link_never_truncates_its_target(tmp_path, monkeypatch,
                                                              interrupted_run):
    run = interrupted_run
    (tmp_path / "precious.txt").write_text("my thesis")
    (run / ".writer.lock").symlink_to(tmp_path / "precious.txt")
    monkeypatch.setenv("FAULT_RANKER_FIXED", "1")
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res",
               "--resume", str(run))
    assert (tmp_path / "precious.txt").read_text() == "my thesis"
    assert refused(res, ".writer.lock") is None, res.err


def test_config_error_from_python_names_no_file_but_the_key():
    """From Python there is no file: the key and what was expected are still named."""
    with pytest.raises(ConfigError, match=r"\[custom_models.mine\] params.*table"):
        custom_model("mine", {"factory": "fault_rankers:Base", "params": 5})


# ======================================================= more config files (not custom models)
MORE_CONFIG: dict[str, tuple[str, tuple[str, ...]]] = {
    "early stopping on test": ('early_stopping_split = "test"\n',
                               ("early_stopping_split", "'test'", "vali")),
    "select_on test": ('select_on = "test"\n', ("select_on", "'test'", "vali")),
    "selection_split an int": ("selection_split = 1\n", ("selection_split", "string")),
    "run table repeats a top key": ('[run]\nquick = false\n',
                                    ("quick", "[run]", "twice")),
    "run table not a table": ("run = 5\n", ("run",)),
    "seeds open range": ('seeds = "0-"\n', ("seeds", "'0-'")),
    "seeds negative text": ('seeds = "-1"\n', ("seeds", "'-1'")),
    "seeds blank text": ('seeds = " , "\n', ("seeds", "empty")),
    "seeds reversed range": ('seeds = "5-2"\n', ("seeds", "'5-2'")),
    "eval_at beyond int32": ("eval_at = [1, 2147483648]\n", ("eval_at", "2147483647")),
    "metrics cutoff zero": ('metrics = ["ndcg@0"]\n', ("metrics", "ndcg@0")),
    "metrics empty string": ('metrics = ""\n', ("metrics", "empty")),
    "profile empty": ('profile = ""\n', ("profile", "empty")),
    "data_dir empty": ('data_dir = ""\n', ("data_dir", "empty")),
    "model_params array of tables": ("[[model_params.lightgbm-lambdarank]]\nn_trees = 5\n",
                                     ("[model_params.lightgbm-lambdarank]", "a table")),
    "als array of tables": ("[[als]]\nfactors = 4\n", ("als", "a table")),
    "params key with a dot": ('[params]\n"n_trees.x" = 5\n', ("[params] n_trees.x",)),
    "params nested table": ("[params.n_trees]\nx = 5\n", ("[params] n_trees", "an integer")),
    "timing_repeats zero": ("timing_repeats = 0\n", ("timing_repeats", "from 1")),
    "description a table": ("description = {a = 1}\n", ("description", "string")),
}


@pytest.mark.parametrize("case", list(MORE_CONFIG))
def test_more_config_file_errors_name_the_file_the_key_and_what_was_expected(case, tmp_path,
                                                                             monkeypatch):
    body, words = MORE_CONFIG[case]
    head = ('dataset = "./letor"\nmodels = ["random"]\nseeds = [0]\nquick = true\n'
            "crosscheck = false\ncache = false\n")
    if body.startswith("["):
        text = head + body
    else:
        key = body.split("=", 1)[0].strip()
        text = "".join(line + "\n" for line in head.splitlines()
                       if line.split("=", 1)[0].strip() != key) + body
    assert _config_case(tmp_path, monkeypatch, text, *words, models="random") is None


# ============================================= faults on the way out and in the parsed-file cache
def test_a_full_disk_mid_run_names_the_file_and_keeps_the_pairs_written(tmp_path, monkeypatch):
    import errno

    calls = {"n": 0}
    real = pd.DataFrame.to_parquet

    def full(self: pd.DataFrame, path: Any, *a: Any, **k: Any) -> Any:
        if ".scores.parquet." in str(path):
            calls["n"] += 1
            if calls["n"] == 3:  # the empty table, random's rows, then the custom model's
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    (tmp_path / "c.toml").write_text('[custom_models.mine]\nfactory = "fault_rankers:Base"\n')
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res")
    assert refused(res, "scores.parquet", "No space left on device") is None, res.err
    run = next((tmp_path / "res/runs").iterdir())
    assert set(pd.read_parquet(run / "scores.parquet").model) == {"random"}
    assert "random" in set(pd.read_csv(run / "metrics.csv").model)
    assert not (run / "status/mine-seed0.json").exists()  # the pair is not done: resume redoes it
    assert not list(run.glob(".*.tmp")), "a temporary file was left behind"
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    res = _run(tmp_path, "--config", "c.toml", "--models", "random,mine", "--out", "res",
               "--resume")
    assert res.status == 0, res.err
    assert set(pd.read_parquet(run / "scores.parquet").model) == {"random", "mine"}


def _cached_run(tmp: Path) -> tuple[Res, Path]:
    letor_folder(tmp / "letor")
    res = cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-progress", "--no-crosscheck",
              "--seeds", "0", "--models", "random", "--data-dir", "dd", "--out", "res")
    return res, tmp / "dd" / "cache"


@pytest.mark.parametrize("damage", ["flip a byte of X.npy", "truncate y.npy",
                                    "manifest.json not JSON", "entry is a file"])
def test_a_damaged_cache_entry_is_rebuilt_and_gives_the_same_numbers(damage, tmp_path):
    res, cache = _cached_run(tmp_path)
    assert res.status == 0, res.err
    first = _metrics(tmp_path / "res")
    entries = [p for p in cache.rglob("manifest.json")]
    assert entries, list(cache.rglob("*"))
    entry = entries[0].parent
    if damage == "flip a byte of X.npy":
        data = bytearray((entry / "X.npy").read_bytes())
        data[-3] ^= 0xFF
        (entry / "X.npy").write_bytes(bytes(data))
    elif damage == "truncate y.npy":
        _truncate(entry / "y.npy")
    elif damage == "manifest.json not JSON":
        (entry / "manifest.json").write_text("{")
    else:
        import shutil

        shutil.rmtree(entry)
        entry.write_text("not an entry")
    import shutil

    shutil.rmtree(tmp_path / "res")
    res, _ = _cached_run(tmp_path)
    assert res.status == 0, res.err
    assert "Traceback" not in res.err
    pd.testing.assert_frame_equal(_metrics(tmp_path / "res"), first)
