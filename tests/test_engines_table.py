"""The engine table (:mod:`bench.engines.table`): one record per engine, read by ``run``,
``evaluate``, ``convert`` and the config schema; clusters opened in the engine layer, never by a
command; a new engine is a row (a fake one is declared here and runs ``evaluate``); the Dask
trainer returns a finished result and its library facts agree with the Library records."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench import cli
from bench.engines import ENGINES, ClusterOptions, Engine, engine_names, get_engine
from bench.errors import ConfigError

PACKAGE = Path(__file__).resolve().parents[1] / "bench"
#: The modules that choose an engine: each reads the table and spells no engine's name.
CHOOSERS = ("commands/evaluate.py", "commands/convert.py", "commands/run.py",
            "benchmark/pipeline.py", "benchmark/config_schema.py", "benchmark/config.py")


def _choices(command: str) -> tuple[str, ...]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    child = sub.choices[command]
    action = next(a for a in child._actions if "--engine" in a.option_strings)
    return tuple(action.choices or ())


def test_the_table_has_the_local_and_the_dask_rows_local_first() -> None:
    assert engine_names() == ("local", "dask")
    assert not get_engine("local").on_cluster
    assert get_engine("dask").on_cluster
    assert get_engine("local").trainer is None  # the in-process path: run_model


@pytest.mark.parametrize("command", ["run", "evaluate", "convert"])
def test_every_engine_option_offers_the_table(command: str) -> None:
    assert _choices(command) == engine_names()


def test_the_config_schema_reads_the_table() -> None:
    from bench.benchmark.config_schema import ENGINES as SCHEMA_ENGINES
    from bench.benchmark.config_schema import TOP_SPECS

    assert engine_names() == SCHEMA_ENGINES
    assert tuple(TOP_SPECS["engine"].choices or ()) == engine_names()


def _engine_literals(path: Path) -> list[str]:
    """Where ``path`` spells an engine's name in code: a comparison with it, or a tuple of them."""
    names = set(ENGINES)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        parts: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        elif isinstance(node, ast.Tuple):
            parts = list(node.elts)
        if any(isinstance(p, ast.Constant) and p.value in names for p in parts):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_module_that_chooses_an_engine_spells_its_name() -> None:
    """Before: ``("local", "dask")`` four times, ``args.engine == "dask"`` in evaluate and
    convert, ``config.engine == "dask"`` in the pipeline."""
    spelled = [hit for rel in CHOOSERS for hit in _engine_literals(PACKAGE / rel)]
    assert not spelled, spelled


def test_no_command_imports_dask_or_opens_a_cluster() -> None:
    banned = ("dask", "distributed", "bench.data.dask_cluster", "bench.engines.dask_engine",
              "bench.engines.dask_trainer")
    hits = []
    for path in (PACKAGE / "commands").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            hits += [f"{path.name}: {n}" for n in names
                     if any(n == b or n.startswith(b + ".") for b in banned)]
    assert not hits, hits


def test_an_unknown_engine_is_a_config_error_listing_the_engines() -> None:
    with pytest.raises(ConfigError, match=r"unknown engine 'dsak'.*dask.*valid: local, dask"):
        get_engine("dsak")


def test_the_local_engine_opens_no_cluster_and_has_no_shard_evaluator() -> None:
    local = get_engine("local")
    with local.open(ClusterOptions()) as client:
        assert client is None
    with pytest.raises(ConfigError, match="the local engine has no evaluator"):
        local.evaluate("x", score_column="score", metrics=["ndcg@10"], profile="ltrbench",
                       per_query=False, options=ClusterOptions())


# ------------------------------------------------------------ a new engine is one table row

SEEN: dict[str, Any] = {}


def fake_evaluator(data: str | Path, *, score_column: str, metrics: list[str], profile: str,
                   per_query: bool, options: ClusterOptions) -> Any:
    """A third engine's :class:`~bench.engines.table.Evaluator` (what a Ray row would name)."""
    from bench.metrics import evaluate

    SEEN.update(data=str(data), score_column=score_column, options=options, profile=profile)
    return evaluate(np.array([2.0, 0.0, 1.0]), np.array([0.3, 0.2, 0.1]),
                    qid=np.array([1, 1, 1]), metrics=metrics, profile=profile)


def test_a_new_engine_is_one_row_and_evaluate_runs_on_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    row = Engine(name="fake", title="Fake", description="a test engine",
                 cluster="bench.engines.table:no_cluster",
                 evaluator=f"{__name__}:fake_evaluator")
    monkeypatch.setitem(ENGINES, "fake", row)
    assert _choices("evaluate") == ("local", "dask", "fake")
    assert cli.main(["evaluate", "--engine", "fake", "--data", str(tmp_path), "--scheduler",
                     "tcp://10.0.0.1:8786", "--metrics", "ndcg@3", "--format", "json"]) == 0
    assert SEEN["options"] == ClusterOptions(scheduler="tcp://10.0.0.1:8786", workers=2)
    assert SEEN["score_column"] == "score"
    assert SEEN["data"] == str(tmp_path)
    # DCG 3/1 + 0 + 1/2 = 3.5 over the ideal 3 + 1/log2(3) + 0 = 3.6309...
    ideal = 3.0 + 1.0 / np.log2(3.0)
    assert f"{3.5 / ideal:.6f}"[:6] in capsys.readouterr().out


# -------------------------------------------------------------------- the Dask trainer's result


def test_the_dask_libraries_are_library_records_with_their_objectives() -> None:
    from bench.runners.libraries import LIBRARIES, dask_libraries, load

    assert dask_libraries() == ("lightgbm", "xgboost")
    for name in dask_libraries():
        d = LIBRARIES[name].dask
        assert d is not None
        assert set(d.objectives) <= {o.name for o in LIBRARIES[name].objectives}
        assert callable(load(d.train))
        assert callable(load(d.predict))


def _bare_trainer() -> Any:
    from bench.engines.dask_trainer import DaskTrainer

    trainer = object.__new__(DaskTrainer)
    trainer.local = True
    return trainer


def _fit(library: str, history: dict[str, list[float]]) -> Any:
    from bench.runners.dask_gbdt import DaskFit

    return DaskFit(library=library, booster="B", library_params={"k": 1}, best_iteration=2,
                   trees_grown=3, curve=[0.1, 0.5, 0.4], stopped_at=3, select_metric="ndcg@10",
                   fit_s=1.0, features=["f0"], notes={"selection": "s"}, history=history)


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_the_dask_trainer_returns_a_finished_result(library: str) -> None:
    from bench.runners.resources import Measurement

    m = Measurement(seconds=2.0, peak_rss_mb=5.0)
    scores = {"vali": np.zeros(2), "test": np.ones(2)}
    history = {"ndcg@10": [0.1, 0.5, 0.4]} if library == "xgboost" else {}
    result = _bare_trainer()._result(f"{library}-x", 7, _fit(library, history), m, scores, 0.25,
                                     "ndcg@10", {"w": 1.0})
    assert (result.model, result.library, result.seed) == (f"{library}-x", library, 7)
    assert result.scores is scores
    assert result.predict_s == 0.25
    assert result.booster == "B"
    assert (result.best_iteration, result.n_trees, result.fit_s) == (2, 3, 2.0)
    assert result.notes["engine"] == "dask"
    assert result.notes["worker_peak_rss_mb"] == {"w": 1.0}
    if library == "xgboost":  # its all-reduced metric is the eval log
        assert list(result.evallog["value"]) == [0.1, 0.5, 0.4]
        assert "validation_curve" not in result.notes
    else:  # per-worker metrics: the reference curve in the notes, no eval log
        assert result.evallog.empty
        assert result.notes["validation_curve"] == [0.1, 0.5, 0.4]


def test_a_model_trained_locally_by_the_dask_trainer_is_a_new_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.engines.dask_trainer as dask_trainer
    from bench.runners.result import FitResult, Selection

    local = FitResult(model="random", library="baseline", seed=0, scores={},
                      evallog=pd.DataFrame(), notes={"a": 1})
    monkeypatch.setattr(dask_trainer, "run_model", lambda *a, **k: local)
    result = _bare_trainer()("random", None, None, seed=0, eval_at=(10,),
                             selection=Selection(10), log_train=False, als=None)
    assert result is not local
    assert local.notes == {"a": 1}
    assert result.notes == {"a": 1, "engine": "local (baselines are not distributed)"}
