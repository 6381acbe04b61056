"""A GBDT library is one declaration (bench.runners.libraries): a fourth library registered in a
fixture, with no other edit, is seen by the registry, dispatch, params validation, the probe, the
device check and its install hints, the manifest and reproduce, and the cross-check's providers;
and the set of library names is written in one module of the package only."""

from __future__ import annotations

import ast
import itertools
import sys
import types
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.crosscheck.providers import (
    CatBoostMetrics,
    LightGBMMetrics,
    XGBoostMetrics,
    builtin_metric,
    provider,
)
from bench.data.letor import LetorData, LetorSplits
from bench.errors import ConfigError
from bench.runners import device as dev
from bench.runners import libraries as libs
from bench.runners import registry
from bench.runners.dispatch import run_model
from bench.runners.gbdt import library_module
from bench.runners.libraries import LIBRARIES, Library, Limit, Objective, get_library, load
from bench.runners.metric_provider import MetricProvider
from bench.runners.params import Params, check_for_library, check_rows
from bench.runners.resources import measure
from bench.runners.result import Selection, fit_result
from bench.runs import manifest

ROOT = Path(__file__).resolve().parents[1]
FAKE = "ltrbench_fake_gbm"  # the fake library's module, put in sys.modules by the fixture


class _FakeMetrics(MetricProvider):
    """FakeGBM's "built-in" metric: the mean label of each query's top row (``top@1`` only)."""

    title = "FakeGBM"
    pattern = __import__("re").compile(r"^top@1$")
    supported = "top@1"

    def prepare(self, labels: Any, scores: Any, offsets: Any, *, label_gain: str,
                n_threads: int, weights: Any) -> None:
        self.tops = [float(labels[a:b][np.argmax(scores[a:b])])
                     for a, b in itertools.pairwise(offsets)]

    def __call__(self) -> dict[str, float]:
        return {m: float(np.mean(self.tops)) for m in self.metrics}


def _fake_module(calls: list[str]) -> types.ModuleType:
    """fit/predict (a linear scorer on the first feature), the Params builder, the probe and the
    CUDA check of the fake library, each recording that it was called."""
    mod = types.ModuleType(FAKE)

    def params(p: Params, objective: str) -> dict[str, Any]:
        calls.append("params")
        return {"objective": get_library("fakegbm").native_objective(objective),
                "leaves": p.num_leaves, **p.raw_params("fakegbm")}

    def probe(kwargs: dict[str, Any]) -> None:
        calls.append("probe")
        if "bad" in kwargs:
            raise ValueError("unknown parameter 'bad'")

    def fit(train: LetorData, vali: LetorData, p: Params, *, objective: str,
            eval_at: tuple[int, ...], selection: Selection, log_train: bool) -> Any:
        calls.append("fit")
        with measure() as m:
            curve = [0.1, 0.3, 0.2]
        records = {split: {f"ndcg@{k}": curve for k in eval_at} for split in ("train", "vali")}
        lib = params(p, objective)
        return "booster", lib, fit_result("fakegbm", p.seed, records, selection, m, lib)

    def predict(booster: Any, data: LetorData, best: int, lib: dict[str, Any]) -> np.ndarray:
        calls.append(f"predict@{best}")
        return np.asarray(data.X[:, 0], dtype=np.float64)

    mod.params, mod.probe, mod.fit, mod.predict = params, probe, fit, predict  # type: ignore[attr-defined]
    mod.Metrics = _FakeMetrics  # type: ignore[attr-defined]
    mod.cuda_build = lambda: False  # type: ignore[attr-defined]
    return mod


FAKE_RECORD = Library(
    name="fakegbm", title="FakeGBM", module=FAKE,
    objectives=(Objective("rank", "rank:fake", "FakeGBM ranking (objective=rank:fake)"),),
    lambdamart="rank", alias="rank", profile="lightgbm",
    params=f"{FAKE}:params", probe=f"{FAKE}:probe", metrics=f"{FAKE}:Metrics",
    import_name=FAKE, distributions=("pluggy",), install="pip install fakegbm",
    devices=("cpu", "cuda"), cuda_build=f"{FAKE}:cuda_build",
    cuda_install="a FakeGBM built with CUDA (pip install fakegbm-cuda)",
    limits=(Limit("num_leaves", 2, 64, source="FakeGBM: at most 64 leaves"),),
    samples_rows=True,
)


@pytest.fixture
def fourth(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """FakeGBM declared: its record in LIBRARIES and its module importable; nothing else."""
    calls: list[str] = []
    monkeypatch.setitem(sys.modules, FAKE, _fake_module(calls))
    monkeypatch.setitem(LIBRARIES, "fakegbm", FAKE_RECORD)
    return calls


def _data(n_queries: int, per: int, seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * per, 3))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.5, size=len(X)), [-0.5, 0.5]).astype(float)
    return LetorData.build(X, y, qid=np.repeat(np.arange(n_queries), per))


def test_the_registry_names_a_declared_librarys_models(fourth: list[str]) -> None:
    spec = registry.get_model("fakegbm-rank")
    assert (spec.library, spec.objective, spec.is_gbdt) == ("fakegbm", "rank", True)
    assert registry.expand_models("fakegbm") == ("fakegbm-rank",)
    assert "fakegbm-rank" in registry.expand_models("gbdt")
    assert registry.lambdamart_models()[-1] == "fakegbm-rank"
    registry.check_custom_name("fakegbm-mine")  # a custom model; its run records "custom"
    with pytest.raises(ConfigError, match="is a built-in model"):
        registry.check_custom_name("fakegbm-rank")


def test_dispatch_trains_a_declared_library_through_its_module(fourth: list[str]) -> None:
    splits = LetorSplits(name="toy", train=_data(8, 5, 1), vali=_data(6, 5, 2),
                         test=_data(5, 5, 3))
    result = run_model("fakegbm-rank", splits, Params(n_trees=3), seed=4)
    assert (result.model, result.library, result.seed, result.best_iteration) == \
        ("fakegbm-rank", "fakegbm", 4, 2)  # the first maximum of 0.1, 0.3, 0.2
    assert np.array_equal(result.scores["test"], splits.test.X[:, 0])
    assert result.library_params == {"objective": "rank:fake", "leaves": 31}
    assert fourth == ["fit", "params", "predict@2", "predict@2"]
    assert library_module("fakegbm") is sys.modules[FAKE]


def test_params_validation_sees_a_declared_librarys_table_limits_and_probe(
        fourth: list[str]) -> None:
    p = Params.from_dict({"n_trees": 5, "fakegbm": {"depth": 3}}, where="[params] ")
    assert p.raw_params("fakegbm") == {"depth": 3}
    assert p.to_dict()["fakegbm"] == {"depth": 3}
    assert Params.from_dict(p.to_dict()) == p
    assert p.with_overrides(fakegbm={"eta": 1}).raw_params("fakegbm") == {"depth": 3, "eta": 1}
    check_for_library(p, "fakegbm", "rank", "[params] ")
    assert fourth == ["params", "probe"]  # a raw table: the library's probe is asked
    with pytest.raises(ConfigError, match=r"\[params\] fakegbm: fakegbm refuses these "
                                          r"parameters: unknown parameter 'bad'"):
        check_for_library(p.with_overrides(fakegbm={"bad": 1}), "fakegbm", "rank", "[params] ")
    with pytest.raises(ConfigError, match="num_leaves: expected an integer from 2 to 64"):
        check_for_library(Params(num_leaves=65), "fakegbm", "rank")
    with pytest.raises(ConfigError, match="unknown FakeGBM objective 'pairs'; valid: rank"):
        check_for_library(Params(), "fakegbm", "pairs")
    with pytest.raises(ConfigError, match="FakeGBM would sample no row of the 3 rows"):
        check_rows(Params(subsample=0.1), "fakegbm", 3)


def test_an_undeclared_librarys_table_is_an_unknown_parameter() -> None:
    with pytest.raises(ConfigError, match="fakegbm"):
        Params.from_dict({"fakegbm": {"depth": 3}}, where="[params] ")
    with pytest.raises(ConfigError, match="fakegbm: not a library"):
        Params(raw=(("fakegbm", (("depth", 3),)),))


def test_the_device_check_gives_a_declared_librarys_install_hint(
        fourth: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dev, "visible_gpus", lambda: ["NVIDIA Fake"])
    with pytest.raises(ConfigError, match=r"the installed fakegbm cannot train on 'cuda'.*"
                                          r"install a FakeGBM built with CUDA"):
        dev.check_device("cuda", {"fakegbm"})
    assert dev.describe_devices("cuda", {"fakegbm"})["cuda_builds"] == {"fakegbm": False}
    monkeypatch.setattr(sys.modules[FAKE], "cuda_build", lambda: True)
    dev.check_device("cuda", {"fakegbm"})
    assert dev.cuda_build("fakegbm") is True


def test_a_missing_library_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    absent = "ltrbench_absent_gbm"
    record = Library(name="absentgbm", title="AbsentGBM", module=absent, objectives=(),
                     lambdamart="", alias="", profile="lightgbm", params="", probe="",
                     metrics="", import_name=absent, distributions=(),
                     install="pip install absentgbm")
    monkeypatch.setitem(LIBRARIES, "absentgbm", record)
    with pytest.raises(ConfigError, match="AbsentGBM is not installed; pip install absentgbm"):
        library_module("absentgbm")


def test_the_manifest_and_reproduce_record_a_declared_librarys_packages(
        fourth: list[str]) -> None:
    assert manifest.packages()[-1] == "pluggy"
    assert "pluggy" in manifest.compared_packages()
    assert manifest.environment()["packages"]["pluggy"] == metadata.version("pluggy")


def test_the_crosscheck_provider_is_the_declared_one(fourth: list[str]) -> None:
    assert provider("fakegbm") is _FakeMetrics
    assert builtin_metric("fakegbm", [0, 2, 1], [0.1, 0.9, 0.5], [0, 3], "top@1") == 2.0
    with pytest.raises(ConfigError, match="FakeGBM metric 'ndcg@10' not supported here; "
                                          "valid: top@1"):
        builtin_metric("fakegbm", [0, 2, 1], [0.1, 0.9, 0.5], [0, 3], "ndcg@10")
    with pytest.raises(ConfigError, match="unknown library 'nogbm'"):
        provider("nogbm")


@pytest.mark.parametrize("name", list(LIBRARIES))
def test_every_record_names_code_that_exists(name: str) -> None:
    from bench.metrics.profiles import get_profile

    lib = LIBRARIES[name]
    module = library_module(name)
    assert callable(module.fit)
    assert callable(module.predict)
    assert callable(load(lib.params))
    assert callable(load(lib.probe))
    assert issubclass(provider(name), MetricProvider)
    assert provider(name).title == lib.title
    assert get_profile(lib.profile).name == lib.profile
    assert ("cuda" in lib.devices) == (lib.cuda_build is not None)
    if lib.cuda_build is not None:
        assert callable(load(lib.cuda_build))
    assert lib.alias in {o.name for o in lib.objectives}
    assert lib.lambdamart in {o.name for o in lib.objectives}
    assert all(registry.get_model(lib.model(o.name)).library == name for o in lib.objectives)
    assert lib.install.startswith("pip install")
    assert lib.cuda_install
    assert all(d in manifest.packages() for d in lib.distributions)


def test_the_providers_declare_what_they_support() -> None:
    assert LightGBMMetrics.supports("ndcg@10")
    assert LightGBMMetrics.supports("map@5")
    assert not LightGBMMetrics.supports("pre@5")
    assert not LightGBMMetrics.supports("ndcg")
    assert XGBoostMetrics.supports("pre@5")
    assert XGBoostMetrics.supports("ndcg-")
    assert XGBoostMetrics.supports("p@3")
    assert not XGBoostMetrics.supports("mrr@3")
    assert CatBoostMetrics.supports("map@3")
    assert not CatBoostMetrics.supports("ndcg@10-")
    with pytest.raises(ConfigError, match="CatBoost metric 'pre@5' not supported here; "
                                          "valid: ndcg@k, map@k"):
        CatBoostMetrics([0, 1], [0.2, 0.1], [0, 2], ["pre@5"])


def test_the_declared_models_and_aliases_are_the_ones_runs_have_always_named() -> None:
    """The run-directory contract: the names (and their order) of every earlier release."""
    assert list(registry.MODELS) == [
        "lightgbm-lambdarank", "lightgbm-xendcg", "lightgbm-regression", "xgboost-ndcg",
        "xgboost-pairwise", "xgboost-map", "xgboost-regression", "catboost-yetirank",
        "catboost-pairlogit", "catboost-queryrmse", "catboost-lambdamart", "popularity",
        "random", "als"]
    assert registry.LAMBDAMART == ("lightgbm-lambdarank", "xgboost-ndcg", "catboost-lambdamart")
    assert {k: v for k, v in registry.ALIASES.items() if len(v) == 1} == {
        "lightgbm": ("lightgbm-lambdarank",), "xgboost": ("xgboost-ndcg",),
        "catboost": ("catboost-yetirank",)}
    assert manifest.compared_packages() == (
        "numpy", "scipy", "pandas", "scikit-learn", "lightgbm", "xgboost", "xgboost-cpu",
        "catboost", "implicit", "numba")


def _sets_of_strings(tree: ast.AST) -> Iterator[tuple[int, set[str]]]:
    """The string elements (keys of a dict) of each tuple, list, set and dict display."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items: list[ast.expr | None] = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        else:
            continue
        yield node.lineno, {i.value for i in items
                            if isinstance(i, ast.Constant) and isinstance(i.value, str)}


def test_the_set_of_library_names_is_written_in_one_module_only() -> None:
    """No tuple, list, set or dict display of the package holds every library name but the
    declarations' module (per-library code, such as each library's Params translator in
    params.py, names its own library only). metrics/profiles.py names its profiles after the
    tools, another concept (a record says which profile is its library's)."""
    names = set(libs.gbdt_libraries())
    allowed = {"bench/runners/libraries.py", "bench/metrics/profiles.py"}
    found = []
    for path in sorted((ROOT / "bench").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{rel}:{line}" for line, strings in _sets_of_strings(tree) if names <= strings]
    assert found == []
