"""Round 9 of the hostile catalogue (issue 19): a config file that names its dataset, run on
another one, and the published table set beside a run.

Before: ``ltrbench run --config experiments-mslr30k --dataset synthetic-mslr30k:0.001``
labelled the run ``experiments-mslr30k`` in every table (the file's ``name``) without a word;
and the report looked the file's ``published`` table up under that display name, so the real
MSLR-WEB30K run of the same config found no published rows at all (the table is keyed by the
catalogue name ``mslr-web30k``). Now the file's name is not carried to other data (said on
stderr; ``--name`` chooses one) and published rows are found under the catalogue card the data
were read from, so they show beside MSLR-WEB30K and beside nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostile_kit import cli
from test_hostile_config import SPLITS

from bench.report.build import published_beside_ours, published_key

CONFIG = """dataset = "./letor"
name = "MQ2007"
published = "ltr-baseline"
models = ["random"]
seeds = [0]
quick = true
crosscheck = false
cache = false
"""


def _folders(tmp: Path) -> None:
    for folder in ("letor", "other"):
        (tmp / folder).mkdir()
        for split, data in SPLITS.items():
            (tmp / folder / f"{split}.txt").write_bytes(data)
    (tmp / "c.toml").write_text(CONFIG, encoding="utf-8")


def _run_dataset_names(tmp: Path) -> set[str]:
    runs = list((tmp / "res" / "runs").iterdir())
    assert len(runs) == 1
    manifest = json.loads((runs[0] / "manifest.json").read_text(encoding="utf-8"))
    return {manifest["dataset"]["name"], runs[0].name.split("-")[0]}


def test_a_config_name_is_not_carried_to_the_dataset_given_on_the_command_line(
        tmp_path: Path) -> None:
    _folders(tmp_path)
    res = cli(tmp_path, "run", "--config", "c.toml", "--dataset", "./other", "--no-progress",
              "--out", "res")
    assert res.status == 0, res.err
    assert "MQ2007" not in _run_dataset_names(tmp_path)
    assert "replaces the dataset './letor' of c.toml" in res.err
    assert "not after the file's name 'MQ2007'" in res.err


def test_name_given_beside_dataset_is_the_runs_name_without_a_warning(tmp_path: Path) -> None:
    _folders(tmp_path)
    res = cli(tmp_path, "run", "--config", "c.toml", "--dataset", "./other", "--name", "mine",
              "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    assert "mine" in _run_dataset_names(tmp_path)
    assert "replaces the dataset" not in res.err


def test_the_files_own_dataset_keeps_the_files_name(tmp_path: Path) -> None:
    _folders(tmp_path)
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    assert "MQ2007" in _run_dataset_names(tmp_path)
    assert "replaces the dataset" not in res.err


def _manifest(card: object) -> dict[str, object]:
    return {"dataset": {"name": "experiments-mslr30k", "meta": {"card": card}}}


def test_published_rows_are_found_under_the_catalogue_card_not_the_display_name() -> None:
    """The run of the shipped experiments-mslr30k config on MSLR-WEB30K is named
    ``experiments-mslr30k``; LightGBM's page publishes 0.524252 NDCG@10 for it (typed in from
    docs/Experiments.rst by bench.report.published; checked there against the page)."""
    rows = [{"model": "lightgbm-lambdarank", "metrics": {"ndcg@10": {"mean": 0.5}}}]
    found = published_beside_ours("lightgbm-experiments", published_key(_manifest("mslr-web30k")),
                                  rows)
    lgb = next(r for r in found if r["row"] == "LightGBM")
    assert lgb["metrics"]["ndcg@10"] == {"published": 0.524252, "ours": 0.5}


def test_no_published_rows_beside_a_stand_in_a_path_or_a_run_without_the_record() -> None:
    rows = [{"model": "lightgbm-lambdarank", "metrics": {"ndcg@10": {"mean": 0.5}}}]
    for manifest in (_manifest("synthetic-mslr30k"), _manifest(None), {}, {"dataset": 5}):
        assert published_beside_ours("lightgbm-experiments", published_key(manifest), rows) == []
