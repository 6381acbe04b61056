"""A library's facts live in its one record (issue 20, item 3): the Dask engine's support, the
permute check's evaluators and the cross-check's provider are read from
:class:`bench.runners.libraries.Library`, not from tables or names elsewhere; the Dask trainer
hands its listeners to the manifest's one writer.

No cluster is started: every lookup here happens before one is touched.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import sys
import types
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.benchmark.permute import library_evaluators
from bench.crosscheck.agreement import crosscheck_arrays
from bench.errors import ConfigError
from bench.runners import dask_gbdt
from bench.runners.libraries import (
    LIBRARIES,
    DaskSupport,
    dask_libraries,
    dask_support,
)
from bench.runners.metric_provider import MetricProvider
from bench.runners.params import Params
from bench.runs.manifest import MANIFEST

FAKE = "ltrbench_fake_records"  # the fake library's module, put in sys.modules by the fixture


class _RowOrderMetrics(MetricProvider):
    """A provider that keeps tied scores in row order: ``ndcg@1`` of binary labels, the label of
    each query's first row among its highest scores (so a permutation can move it)."""

    title = "RowGBM"
    pattern = re.compile(r"^(ndcg)@(1)$")
    supported = "ndcg@1"
    ties_in_row_order = True

    def prepare(self, labels: Any, scores: Any, offsets: Any, *, label_gain: str,
                n_threads: int, weights: Any) -> None:
        self.top = [float(labels[a + int(np.argmax(scores[a:b]))] > 0)
                    for a, b in itertools.pairwise(offsets)]

    def __call__(self) -> dict[str, float]:
        return {m: float(np.mean(self.top)) for m in self.metrics}


def _train(*args: Any) -> dask_gbdt.DaskFit:
    """A fit of no trees that keeps the library parameters it was given (``args[4]``)."""
    return dask_gbdt.DaskFit(library="rowgbm", booster=None, library_params=args[4],
                             best_iteration=0, trees_grown=0, curve=[], stopped_at=0,
                             select_metric="ndcg@10", fit_s=0.0, features=["f0"])


@pytest.fixture
def fourth(monkeypatch: pytest.MonkeyPatch) -> str:
    """RowGBM declared: a record (with Dask support) and its module; nothing else."""
    mod = types.ModuleType(FAKE)
    mod.Metrics = _RowOrderMetrics  # type: ignore[attr-defined]
    mod.params = lambda p, objective, **kw: {"objective": objective, "threads": 1}  # type: ignore[attr-defined]
    mod.train = _train  # type: ignore[attr-defined]
    mod.predict = lambda fit, X: np.zeros(len(X))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, FAKE, mod)
    record = replace(LIBRARIES["lightgbm"], name="rowgbm", title="RowGBM", module=FAKE,
                     params=f"{FAKE}:params", metrics=f"{FAKE}:Metrics",
                     dask=DaskSupport(objectives=("lambdarank",), dropped=("threads",),
                                      train=f"{FAKE}:train", predict=f"{FAKE}:predict",
                                      global_metric=True))
    monkeypatch.setitem(LIBRARIES, "rowgbm", record)
    return "rowgbm"


# ---------------------------------------------------------------------------- Dask support


def test_the_dask_libraries_are_the_records_with_dask_support() -> None:
    assert dask_libraries() == ("lightgbm", "xgboost")
    assert LIBRARIES["catboost"].dask is None
    assert dask_support("xgboost").global_metric is True
    assert dask_support("lightgbm").global_metric is False


def test_a_known_library_without_a_dask_trainer_is_named_as_such_without_a_guess() -> None:
    with pytest.raises(ConfigError, match=r"^CatBoost has no Dask trainer; the Dask engine trains "
                                          r"lightgbm, xgboost \(train catboost with the local "
                                          r"engine\)$"):
        dask_support("catboost")
    assert not dask_gbdt.on_dask("catboost", "ndcg")


@pytest.mark.parametrize("library", ["nosuch", "LightGBM", "", None, 3])
def test_a_library_without_a_dask_trainer_is_the_shared_unknown_error(library: Any) -> None:
    with pytest.raises(ConfigError, match=r"^unknown library on the Dask engine .*"
                                          r"valid: lightgbm, xgboost$"):
        dask_support(library)
    with pytest.raises(ConfigError, match="unknown library on the Dask engine"):
        dask_gbdt.train_dask(library, None, None, None, Params(), objective="ndcg")
    assert not dask_gbdt.on_dask(library, "ndcg")


@pytest.mark.parametrize(("library", "objective"), [("xgboost", "map"), ("xgboost", "regression"),
                                                    ("lightgbm", "regression"),
                                                    ("lightgbm", "ndcg")])
def test_an_objective_not_on_dask_is_the_shared_unknown_error(library: str, objective: str) -> None:
    valid = ", ".join(dask_support(library).objectives)
    with pytest.raises(ConfigError, match=rf"^unknown {library} objective on the Dask engine "
                                          rf"'{objective}'; .*valid: {valid}$"):
        dask_gbdt.train_dask(library, None, None, None, Params(), objective=objective)
    assert not dask_gbdt.on_dask(library, objective)


def test_a_declared_librarys_dask_support_is_read_from_its_record(
        fourth: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert dask_libraries() == ("lightgbm", "xgboost", "rowgbm")
    assert dask_gbdt.on_dask("rowgbm", "lambdarank")
    assert not dask_gbdt.on_dask("rowgbm", "xendcg")
    frame = types.SimpleNamespace(columns=["qid", "label", "f0"])
    monkeypatch.setattr(dask_gbdt, "query_layout", lambda ddf, where: where)
    out = dask_gbdt.train_dask("rowgbm", None, frame, frame, Params(), objective="lambdarank")
    assert out.library_params == {"objective": "lambdarank"}  # "threads" dropped on Dask


# ------------------------------------------------------------------------ permute evaluators


def test_the_permute_evaluators_are_the_declared_providers_with_row_order_ties() -> None:
    assert list(library_evaluators()) == ["lightgbm", "xgboost"]  # CatBoost: lower label first
    assert not LIBRARIES["catboost"].provider().ties_in_row_order


def test_a_declared_library_with_row_order_ties_is_permute_checked(fourth: str) -> None:
    evaluators = library_evaluators()
    assert list(evaluators) == ["lightgbm", "xgboost", "rowgbm"]
    assert evaluators["rowgbm"] is _RowOrderMetrics


# --------------------------------------------------------------------- cross-check provider


def test_the_crosscheck_uses_the_provider_passed_down(fourth: str) -> None:
    labels, scores, offsets = [1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.2, 0.9], [0, 2, 4]
    out = crosscheck_arrays("rowgbm", labels, scores, offsets, metric="ndcg@1",
                            library_profile="lightgbm", recompute=True,
                            provider=_RowOrderMetrics)
    (check,) = out.checks
    assert check.builtin == 1.0  # the tie in query 1 keeps row order: the relevant row first
    assert check.agreement == "exact"  # LightGBM's profile: ties in row order too


def test_the_crosscheck_of_an_undeclared_library_is_the_unknown_library_error() -> None:
    with pytest.raises(ConfigError, match="unknown library 'nogbm'"):
        crosscheck_arrays("nogbm", [1.0, 0.0], [0.2, 0.1], [0, 2], metric="ndcg@2",
                          library_profile="lightgbm")


# ---------------------------------------------------------------- the Dask trainer's listeners


def test_the_dask_trainer_returns_its_listeners_and_writes_no_manifest(tmp_path: Path) -> None:
    import bench.engines.dask_trainer as engine

    run_dir = tmp_path / "run"
    (run_dir / ".dask").mkdir(parents=True)
    (run_dir / MANIFEST).write_text('{"run_id": "r"}', encoding="utf-8")
    before = (run_dir / MANIFEST).stat().st_mtime_ns
    trainer = object.__new__(engine.DaskTrainer)
    trainer.workdir, trainer.client, trainer.scheduler = run_dir / ".dask", None, None
    trainer.cluster = {"scheduler": "tcp://127.0.0.1:8786", "worker_addresses": []}
    trainer.listened, trainer.libraries, trainer._warned = {"127.0.0.1:8786"}, {}, set()
    trainer.local_scheduler = True
    trainer._note_listeners = lambda: None  # type: ignore[method-assign]  # no process sampled
    trainer._stack = contextlib.ExitStack()
    closed: list[bool] = []
    trainer._stack.callback(lambda: closed.append(True))
    completed = trainer.close()
    assert closed == [True]
    assert completed == {"listeners": trainer.listeners()}
    assert completed["listeners"]["addresses"] == ["127.0.0.1:8786"]
    assert (run_dir / MANIFEST).stat().st_mtime_ns == before
    assert json.loads((run_dir / MANIFEST).read_text(encoding="utf-8")) == {"run_id": "r"}
