"""Run a benchmark on several folds of a LETOR dataset and write its fold table.

``run_folds(config, (1, 2, 3, 4, 5))`` runs ``config`` once per fold, each an ordinary run
directory (``<out>/runs/<run-id>/``, its ``config.toml`` naming the fold: ``ohsumed:Fold3`` or
``PATH:Fold3``, so ``ltrbench reproduce`` re-runs a fold as it re-runs any run; its dataset named
``NAME:Fold3``, ``NAME`` the config's ``name`` or the dataset's own), then writes the
fold tables of the runs (:mod:`bench.report.folds`) to ``<out>/folds/<name>-<folds>.md`` and
``.json``. The folds are chosen and checked before the first fold trains: the dataset must be a
LETOR root (a catalogue card with five folds, or a folder with ``Fold1..Fold5/`` or
``S1..S5.txt``, see :mod:`bench.datasets.folds`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.benchmark.config import RunConfig
from bench.benchmark.config_hash import accepted_hashes
from bench.benchmark.pipeline import SplitWarning, results_folder, run_benchmark
from bench.data.atomic import replace_file_set
from bench.data.compressed import HEAD, refuse_compressed
from bench.data.jsonio import json_number, loads_strict
from bench.data.outputs import check_output_file
from bench.datasets.catalogue import SHAPES_LOADER, DatasetSpec
from bench.datasets.fetch import find_dataset
from bench.datasets.folds import (
    N_FOLDS,
    check_distinct_test_folds,
    check_folders_match_parts,
    check_same_validation,
    fold_name,
    fold_source,
    fold_suffix,
)
from bench.datasets.resolve import resolve_spec
from bench.errors import ConfigError
from bench.report.folds import FoldTable, fold_table, render_fold_document
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir
from bench.runs.search import latest_of_config


@dataclass(frozen=True)
class FoldRuns:
    """The run directories of the folds (in the order run) and the fold table files."""

    runs: tuple[Path, ...]
    tables: tuple[FoldTable, ...]
    markdown: Path
    json: Path


def fold_datasets(dataset: str | DatasetSpec, folds: Sequence[int]) -> list[str]:
    """The dataset text of each fold (``ohsumed:Fold3``, ``PATH:Fold3``), checked before any run:
    a dataset that is not a LETOR root with these folds is refused saying what it is."""
    return _fold_plan(resolve_spec(dataset), folds)[0]


def _fold_plan(spec: DatasetSpec, folds: Sequence[int],
               data_dir: str | os.PathLike[str] | None = None) -> tuple[list[str], str]:
    """The fold datasets of :func:`fold_datasets` and the dataset's name without a fold (the
    card's spec, or the LETOR root folder's name). Test folds that share a query are refused
    (:func:`bench.datasets.folds.check_distinct_test_folds`), for a folder given by path and for
    a catalogue card's folder in ``data_dir`` alike."""
    if not folds or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= N_FOLDS
                        for k in folds) or len(set(folds)) != len(folds):
        raise ConfigError(f"folds: expected distinct fold numbers 1..{N_FOLDS} (at least one); "
                          f"got {list(folds)!r}")
    head, named = fold_suffix(spec.text)
    if named is not None:  # ``PATH:Fold2 --folds 1`` ran Fold1 and dropped Fold2 in silence
        raise ConfigError(f"--folds: dataset {spec.text!r} names one fold ({named}) and --folds "
                          f"picks folds of its root; give the root ({head!r}) with --folds, or "
                          f"{spec.text!r} without --folds")
    if spec.card is not None:
        card = spec.card
        if card.loader == SHAPES_LOADER:  # a stand-in: five folds of its generated parts
            return [f"{spec.text}:Fold{k}" for k in folds], spec.display_name
        missing = [k for k in folds if f"Fold{k}" not in card.folds]
        if card.loader != "letor" or missing:
            have = ", ".join(card.folds) if card.loader == "letor" and card.folds else "none"
            raise ConfigError(f"--folds: dataset {card.spec!r} has no fold "
                              f"{', '.join(f'Fold{k}' for k in missing or folds)} (its LETOR "
                              f"folds: {have}); folds apply to LETOR datasets with "
                              f"Fold1..Fold{N_FOLDS} or S1..S{N_FOLDS}")
        if (folder := find_dataset(card, data_dir=data_dir)) is not None:  # else: said later
            check_distinct_test_folds(folder, folds)
            check_same_validation(folder, folds)
            check_folders_match_parts(folder, folds)
        return [f"{card.spec}:Fold{k}" for k in folds], card.spec
    assert spec.path is not None
    root = spec.path
    if root.is_file():  # an archive of the root (MQ2008.zip, Fold1..5 in a .tar.gz) said so
        with open(root, "rb") as f:
            refuse_compressed(f.read(HEAD), root)
    if not root.is_dir():
        raise ConfigError(f"--folds: {root} is a file; folds apply to a LETOR root folder with "
                          f"Fold1..Fold{N_FOLDS}/ or S1..S{N_FOLDS}.txt")
    for k in folds:
        fold_source(root, k)  # refuses a fold the root cannot give, naming what it lacks
    check_distinct_test_folds(root, folds)  # Fold2/test.txt a copy of Fold1's: pooled twice
    check_same_validation(root, folds)  # Fold3/vali.txt lost: validated another way
    check_folders_match_parts(root, folds)  # Fold3/ of another cut than S1..S5
    return [f"{root}:Fold{k}" for k in folds], root.resolve().name


def run_folds(config: RunConfig, folds: Sequence[int], *, out_dir: str | Path | None = None,
              progress: bool = True, metrics: Sequence[str] | None = None,
              resume: bool = False) -> FoldRuns:
    """Run ``config`` on each of ``folds`` and write the fold tables of ``metrics`` (default: the
    config's metrics); see the module docstring. ``resume`` (``run --folds ... --resume``, a
    five-fold run killed between folds): each fold goes on from its latest run of this config
    under ``out_dir`` (:func:`bench.runs.search.latest_of_config`: one that finished trains
    nothing again, one cut short trains the pairs it lacks, its inputs checked as any resume
    checks them); a fold without one runs anew."""
    datasets, own_name = _fold_plan(resolve_spec(config.dataset), folds,  # parsed once
                                    config.data_dir)
    base = config.name or own_name
    out = results_folder(out_dir)
    folder = out / "folds"
    stem = f"{dataset_slug(base)}-folds{''.join(str(k) for k in folds)}"
    for suffix in (".md", ".json"):  # checked before the first fold trains, not after the last
        check_output_file(folder / f"{stem}{suffix}", option="--out")
    runs = []
    for k, text in zip(folds, datasets, strict=True):
        # each fold its own dataset name (NAME:FoldK): its tables, cross-check and plot
        # folder apart from the other folds'; the fold table names the dataset NAME
        fold_config = dataclasses.replace(config, dataset=text, name=fold_name(base, k)) \
            .noted(config.over_file)
        prior = latest_of_config(out / "runs", accepted_hashes(fold_config.resolved())) \
            if resume else None
        runs.append(run_benchmark(fold_config, out_dir=out, progress=progress,
                                  resume=prior if prior is not None else False))
    dirs = [RunDir(r) for r in runs]
    _warn_feature_counts(base, folds, dirs)
    tables = tuple(fold_table(dirs, m) for m in (metrics or config.metrics))
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"dataset": tables[0].dataset, "folds": list(tables[0].folds),
           # relative to the results folder holding folds/ and runs/: a committed fold table
           # finds its runs anywhere (bench.benchmark.reproduce_folds)
           "runs": [os.path.relpath(r, out) for r in runs], "tables": [table_json(t) for t in tables]}
    _say_replaced(folder / f"{stem}.json", [os.path.relpath(r, out) for r in runs])
    md, js = write_fold_tables(folder, stem, doc)
    return FoldRuns(runs=tuple(runs), tables=tables, markdown=md, json=js)


def write_fold_tables(folder: Path, stem: str, doc: dict[str, Any]) -> tuple[Path, Path]:
    """``folder/<stem>.md`` and ``.json`` replaced as one set (:func:`replace_file_set`; the
    folder's other tables kept): written one after the other, a full disk or Ctrl-C at the
    JSON left the new table's Markdown beside the earlier one's JSON. The Markdown is what
    the JSON renders to, as reproduce renders it to compare them."""
    names = (f"{stem}.md", f"{stem}.json")
    with replace_file_set(folder, names) as tmp:
        (tmp / names[0]).write_text(render_fold_document(doc), encoding="utf-8")
        (tmp / names[1]).write_text(json.dumps(doc, indent=2, allow_nan=False),
                                    encoding="utf-8")
    return folder / names[0], folder / names[1]


class FoldTableWarning(UserWarning):
    """A fold table written over an earlier one of other runs (said, naming them)."""


def _say_replaced(path: Path, runs: list[str]) -> None:
    """A second ``run --folds`` of one name and folds into one ``--out`` replaces the fold table
    the first wrote: said, naming the runs that table was built from (they stay in ``runs/``)."""
    if not path.is_file():
        return
    try:
        old = loads_strict(path.read_text(encoding="utf-8")).get("runs")
    except (OSError, ValueError, AttributeError):
        old = None
    earlier = [str(r) for r in old] if isinstance(old, list) else []
    if earlier != runs:
        warnings.warn(f"{path}: replaced by the fold table of these runs; it was the table of "
                      f"{', '.join(earlier) or 'runs it does not name'} (those runs are kept; "
                      "give --out another folder, or --name, to keep both tables)",
                      FoldTableWarning, stacklevel=3)


def _warn_feature_counts(name: str, folds: Sequence[int], dirs: Sequence[RunDir]) -> None:
    """Folds of one LETOR dataset read one feature count (136 on MSLR-WEB, 46 on MQ2007/8); a
    difference (``Fold2/`` of another dataset put in place) is said with each fold's count."""
    counts = []
    for d in dirs:
        dataset = d.manifest.get("dataset")
        meta = dataset.get("meta") if isinstance(dataset, dict) else None
        counts.append(meta.get("n_features") if isinstance(meta, dict) else None)
    if len({c for c in counts if c is not None}) > 1:
        said = ", ".join(f"Fold{k}: {c}" for k, c in zip(folds, counts, strict=True))
        warnings.warn(f"dataset {name!r} [fold_features]: the folds read different feature "
                      f"counts ({said}); the folds of one LETOR dataset have one: are these "
                      "folds of two datasets?", SplitWarning, stacklevel=3)


def table_json(t: FoldTable) -> dict[str, object]:
    return {"metric": t.metric, "profile": t.profile, "folds": list(t.folds),
            "run_ids": list(t.run_ids), "n_queries": t.n_queries,
            "rows": [{"model": r.model, "per_fold": [json_number(v) for v in r.per_fold],
                      "mean": json_number(r.mean), "std": json_number(r.std),
                      "pooled_mean": json_number(r.pooled_mean),
                      "ci": [json_number(r.ci_low), json_number(r.ci_high)],
                      "p_holm_vs_best": None if r.p_holm is None else json_number(r.p_holm)}
                     for r in t.rows]}


__all__ = ["FoldRuns", "FoldTableWarning", "fold_datasets", "run_folds", "table_json"]
