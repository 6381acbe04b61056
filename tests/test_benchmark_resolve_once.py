"""Each choice of a run is resolved once and passed down as a value (issue 20, item 1), and the
manifest is a typed value with one writer (item 5)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bench.benchmark import config as config_module
from bench.benchmark.config import RunConfig
from bench.datasets import resolve as resolve_module
from bench.datasets.resolve import resolve_spec
from bench.errors import ConfigError, DataError
from bench.metrics.profiles import get_profile
from bench.runners import dispatch
from bench.runners.registry import get_model
from bench.runs.layout import BLANK_VARIANTS, blank_variant_of
from bench.runs.manifest import MANIFEST, Manifest, ManifestWriter

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("text", "name", "fold", "scale", "seed", "variant", "display"), [
    ("synthetic", "synthetic", "Fold1", 1.0, 0, "", "synthetic"),
    ("mslr-web10k:Fold3", "mslr-web10k", "Fold3", 1.0, 0, "", "mslr-web10k:Fold3"),
    ("mslr-web10k:Fold1", "mslr-web10k", "Fold1", 1.0, 0, "", "mslr-web10k"),
    ("MSLR-WEB10K", "mslr-web10k", "Fold1", 1.0, 0, "", "mslr-web10k"),
    ("istella:s", "istella", "Fold1", 1.0, 0, "s", "istella:s"),
    ("synthetic-mslr30k:0.01,seed=2", "synthetic-mslr30k", "Fold1", 0.01, 2,
     "", "synthetic-mslr30k:0.01,seed=2"),
    ("synthetic-yahoo:seed=0", "synthetic-yahoo", "Fold1", 1.0, 0, "", "synthetic-yahoo"),
])
def test_dataset_spec_holds_what_the_text_says(text: str, name: str, fold: str, scale: float,
                                               seed: int, variant: str, display: str) -> None:
    spec = resolve_spec(text)
    assert spec.card is not None
    assert spec.path is None
    assert (spec.text, spec.name, spec.fold, spec.scale, spec.seed, spec.card.variant) == (
        text, name, fold, scale, seed, variant)
    assert spec.display_name == display
    assert resolve_spec(spec) is spec  # a resolved spec is passed on, not parsed again


@pytest.mark.parametrize(("text", "error"), [
    ("nope", ConfigError), ("./nope", DataError), ("mslr-web10k:Fold9", ConfigError),
    ("synthetic-mslr30k:11", ConfigError), ("synthetic-mslr30k:seed=-1", ConfigError),
])
def test_dataset_spec_refuses_what_the_loader_refused(text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        resolve_spec(text)


def test_dataset_spec_of_a_path(tmp_path: Path) -> None:
    spec = resolve_spec(str(tmp_path))
    assert spec.card is None
    assert spec.path == tmp_path
    assert spec.display_name == str(tmp_path)


def test_a_resolved_dataset_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = resolve_spec("synthetic")

    def no_parse(text: str) -> tuple[str, str | None]:
        raise AssertionError(f"parsed again: {text}")

    monkeypatch.setattr(resolve_module, "parse_spec", no_parse)
    monkeypatch.setattr(resolve_module, "synthetic_splits", lambda progress=None: "splits")
    monkeypatch.setattr(resolve_module, "_checked", lambda splits: splits)
    assert resolve_module.load_dataset(spec, cache=False) == "splits"


def test_run_config_resolves_models_profile_and_cutoff_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = RunConfig(models=("lightgbm-lambdarank", "random"), select_metric="ndcg@5",
                       profile=" LightGBM ")

    def no_lookup(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("looked up again")

    monkeypatch.setattr(config_module, "get_model", no_lookup)
    monkeypatch.setattr(config_module, "get_profile", no_lookup)
    monkeypatch.setattr(config_module, "selection_metric", no_lookup)  # its cutoff too
    resolved = config.resolved()
    assert resolved.model_spec("random") == get_model("random")
    assert resolved.profile_value is get_profile("lightgbm")
    assert resolved.profile == "lightgbm"  # recorded by its canonical name (rows, manifest)
    assert resolved.selection_k == 5


def test_resolved_and_load_do_not_validate_again(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    calls = []
    original = RunConfig.__post_init__

    def counted(self: RunConfig) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(RunConfig, "__post_init__", counted)
    path = tmp_path / "run.toml"
    path.write_text('models = ["random", "mine"]\nquick = true\n'
                    '[custom_models.mine]\nfactory = "custom_rankers:make_linear"\n',
                    encoding="utf-8")
    config = RunConfig.load(path)
    resolved = config.resolved()
    assert len(calls) == 1
    assert resolved.params.n_trees == 20
    assert resolved.custom_models["mine"].source == str(path)
    assert replace(resolved, seeds=(1,)).seeds == (1,)
    assert len(calls) == 2


def test_run_model_takes_the_resolved_model_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_model("random")
    seen: list[Any] = []

    def no_lookup(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("looked up again")

    monkeypatch.setattr(dispatch, "get_model", no_lookup)
    monkeypatch.setattr(dispatch, "verify_unchanged", lambda splits: None)
    monkeypatch.setattr(dispatch, "run_random", lambda splits, seed: seen.append(seed) or "fit")
    assert dispatch.run_model(spec, None, RunConfig().params, seed=3) == "fit"  # type: ignore[arg-type]
    assert seen == [3]


def test_blank_variants_label_and_read_back() -> None:
    assert [(v.tag, v.fill) for v in BLANK_VARIANTS] == [("blank0", 0.0), ("blank1", 1.0)]
    assert BLANK_VARIANTS[0].label("ltrbench") == "ltrbench-blank0"
    assert blank_variant_of("lightgbm-blank1") == ("lightgbm", BLANK_VARIANTS[1])
    assert blank_variant_of("ltrbench") == ("ltrbench", None)


def test_committed_manifests_read_back_unchanged() -> None:
    found = sorted((ROOT / "results" / "runs").glob(f"*/{MANIFEST}"))
    assert found
    for path in found:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert Manifest.from_dict(doc).to_dict() == doc, path


def test_manifest_writer_records_an_engines_keys_and_keeps_them(tmp_path: Path) -> None:
    """The engine's record at start and what its close returns (the Dask engine's listeners)
    go through the writer, the manifest's one owner, and stay in its later writes."""
    doc = json.loads(sorted((ROOT / "results" / "runs").glob(f"*/{MANIFEST}"))[0]
                     .read_text(encoding="utf-8"))
    writer = ManifestWriter(tmp_path, Manifest.from_dict(doc))
    writer.change(engine="dask", listeners={"addresses": []})  # the engine started
    writer.change(listeners={"addresses": ["127.0.0.1:1"]})  # what its close returned
    writer.change(finished="2026-01-01T00:00:00+00:00", failures=None)
    final = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert final["listeners"] == {"addresses": ["127.0.0.1:1"]}
    assert final["engine"] == "dask"
    assert final["finished"] == "2026-01-01T00:00:00+00:00"
    assert "failures" not in final
