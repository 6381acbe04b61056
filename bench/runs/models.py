"""The library of each model of a run directory, read from the run's own records.

A run records the library of every model it trains, in its own files (never only in the name):

* ``manifest.json`` ``models.<name>.library``: written when the run starts, from the model's
  :class:`~bench.runners.registry.ModelSpec` (``bench/benchmark/record.py`` ``start_manifest``);
* the ``library`` column of ``metrics.csv`` and ``timings.csv``: written with each (model, seed)
  from its :class:`~bench.runners.result.FitResult`;
* ``config.toml`` ``[custom_models.<name>]``: a user's model, whose library is
  :data:`~bench.runners.registry.CUSTOM_LIBRARY` whatever its name looks like.

:func:`model_libraries` reads them all and is the one place a reader (the cross-check, the run
search, the leaderboard) gets a model's library from: so a user's model named ``lightgbm-mine``
is a ``custom`` model everywhere, never a LightGBM model because of its name. Records that
disagree (a hand merge of two runs, an edited table) are a :class:`~bench.errors.DataError`
naming both records, never a silent pick of one.

Only a model that none of these records names (a run folder written by hand or by an old
version of ltrbench without the ``library`` column and the manifest's ``models`` table) falls
back to the name's prefix before the first ``-`` (:func:`bench.runs.naming.library_of`), the
rule every built-in model name follows (:meth:`bench.runners.libraries.Library.model`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bench.errors import DataError
from bench.runners.libraries import gbdt_libraries
from bench.runners.registry import CUSTOM_LIBRARY
from bench.runs.manifest import MANIFEST
from bench.runs.naming import library_of
from bench.runs.reader import RunDir

#: The run tables that hold a ``library`` column, in the order they are read.
LIBRARY_TABLES: tuple[str, ...] = ("metrics.csv", "timings.csv")
_SOURCES = ("manifest.json models.<name>.library, the library column of metrics.csv and "
            "timings.csv, config.toml [custom_models]")


@dataclass(frozen=True)
class _Said:
    """One record of a model's library: the library and where the run says it."""

    library: str
    file: str
    where: str


def model_libraries(run: RunDir, models: Iterable[str] = ()) -> dict[str, str]:
    """``{model: library}`` for every model ``run`` records and every name in ``models`` (the
    models of another file, e.g. ``scores.parquet``, that the caller reads).

    The library comes from the run's own records (see the module docstring): the manifest's
    ``models`` table, the ``library`` column of ``metrics.csv`` and ``timings.csv``, and the
    config's ``[custom_models]``. Only in a run folder with none of these records (written by
    hand or by an old version) does a name of ``models`` get its name's prefix
    (:func:`bench.runs.naming.library_of`), the documented fallback.

    Raises :class:`~bench.errors.DataError` naming the file (line, column or key) when a record
    is empty or not text, when two records of one model disagree, or when the run records
    libraries but not that of a name of ``models``.
    """
    said: dict[str, list[_Said]] = {}
    for model, record in _records(run):
        said.setdefault(model, []).append(record)
    out = {model: _agreed(run, model, records) for model, records in said.items()}
    unrecorded = [m for m in dict.fromkeys(str(m) for m in models) if m not in out]
    # the config names only the custom models: a run that records every model's library is one
    # with the manifest's libraries or a library column
    if unrecorded and any(r.file != "config.toml" for rs in said.values() for r in rs):
        raise DataError(f"the run has model {unrecorded[0]!r} but none of its records names "
                        f"that model's library ({_SOURCES}); the run's files do not belong "
                        "together", path=run.path)
    for model in unrecorded:  # an old run folder without any record: the name's prefix
        out[model] = library_of(model)
    return out


def _records(run: RunDir) -> Iterable[tuple[str, _Said]]:
    yield from _manifest_records(run)
    yield from _config_records(run.config)
    for name in LIBRARY_TABLES:
        if run.has(name):
            yield from _table_records(run, name)


def _manifest_records(run: RunDir) -> Iterable[tuple[str, _Said]]:
    models = run.manifest.get("models")
    if not isinstance(models, Mapping):  # absent, or an old manifest's list of names
        return
    for model, entry in models.items():
        if not isinstance(entry, Mapping) or "library" not in entry:
            continue  # names the model without recording its library
        key = f"models.{model}.library"
        library = entry["library"]
        if not isinstance(library, str) or not library.strip():
            raise DataError(f"{key} is {library!r}: expected the model's library as text "
                            "(e.g. 'lightgbm', 'baseline', 'custom')",
                            path=run.path / MANIFEST)
        yield str(model), _Said(library, MANIFEST, key)


def _config_records(config: Mapping[str, Any]) -> Iterable[tuple[str, _Said]]:
    custom = config.get("custom_models")
    if isinstance(custom, Mapping):
        for model in custom:
            yield str(model), _Said(CUSTOM_LIBRARY, "config.toml", f"[custom_models.{model}]")


def _table_records(run: RunDir, name: str) -> Iterable[tuple[str, _Said]]:
    frame = run.table(name)
    if "library" not in frame.columns:  # an old run's table: no record here
        return
    models = frame["model"].astype(str).to_numpy()
    column = frame["library"]
    blank = column.isna().to_numpy() | column.astype(str).str.strip().eq("").to_numpy()
    if blank.any():
        i = int(blank.argmax())
        raise DataError(f"the library of model {models[i]!r} is empty: expected the library "
                        "the run trained it with (the column is written for every row)",
                        path=run.path / name, line=i + 2, column="library")
    pairs = pd.DataFrame({"model": models, "library": column.astype(str).to_numpy()})
    first = pairs.drop_duplicates()  # each (model, library) at its first line
    for i, model, library in zip(first.index, first["model"], first["library"], strict=True):
        yield str(model), _Said(str(library), name, f"line {int(i) + 2}")


def _agreed(run: RunDir, model: str, records: list[_Said]) -> str:
    first = records[0]
    for other in records[1:]:
        if other.library != first.library:
            raise DataError(
                f"the run's records disagree on the library of model {model!r}: "
                f"{first.file} ({first.where}) says {first.library!r}, {other.file} "
                f"({other.where}) says {other.library!r}; the run was edited or merged by hand",
                path=run.path / other.file)
    return first.library


def gbdt_models(libraries: Mapping[str, str]) -> set[str]:
    """The models of ``libraries`` (a :func:`model_libraries` result) whose library is a GBDT
    library declared now (:func:`bench.runners.libraries.gbdt_libraries`): the models with a
    built-in metric the cross-check can compare."""
    declared = set(gbdt_libraries())
    return {m for m, lib in libraries.items() if lib in declared}
