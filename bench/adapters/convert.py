"""Write converted ratings to disk: ``train/vali/test`` as SVMlight (+ ``.query``) and Parquet.

Layout of ``out_dir`` (what the LETOR folder loader reads back)::

    train.txt  train.txt.query  train.parquet
    vali.txt   vali.txt.query   vali.parquet
    test.txt   test.txt.query   test.parquet
    summary.json                  # the summary returned by convert(), feature names, sha256
    users.csv  items.csv          # ids the reader numbered (text ids): number,external_id

SVMlight lines are ``label qid:<user id> 1:v1 2:v2 ...`` (zero features omitted); feature
``j`` is ``feature_names[j - 1]``, listed in ``summary.json`` (no header comment: XGBoost's
and LightGBM's own text loaders refuse a ``#`` line, so the file holds data lines only). Where the reader numbered a table's ids (text ids such as e-mails or UUIDs:
:mod:`bench.data.tabular`), ``qid``, ``user`` and ``item`` hold those numbers and
``users.csv`` / ``items.csv`` (columns ``user`` or ``item``, and ``external_id``) map each
back to the id as written. Every file is written atomically.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench.adapters.config import AdapterConfig
from bench.adapters.pipeline import ratings_to_letor
from bench.data.atomic import replace_file_set, write_text
from bench.data.jsonio import dumps, loads_strict
from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings
from bench.data.split_sets import digests_of, stats_of
from bench.data.svmlight import write_svmlight

if TYPE_CHECKING:
    import pandas as pd

PathLike = str | os.PathLike[str]


def convert(ratings: Ratings, out_dir: PathLike, config: AdapterConfig | None = None, *,
            parquet: bool = True, svmlight: bool = True,
            progress: Callable[[str], None] | None = None) -> dict[str, object]:
    """Convert ``ratings`` with :func:`ratings_to_letor` and write the three partitions.

    Returns the summary (also written to ``summary.json``): per partition the queries, rows,
    features, label histogram and blank queries (no label >= 1), plus the feature names, the
    adapter configuration and the files written.
    """
    splits = ratings_to_letor(ratings, config, progress=progress)
    if progress is not None:
        progress("writing the files")
    return write_splits(splits, out_dir, parquet=parquet, svmlight=svmlight,
                        id_maps=id_maps(ratings))


def id_maps(ratings: Ratings) -> dict[str, pd.DataFrame]:
    """The maps of the ids the reader numbered: ``{"users.csv": frame, "items.csv": frame}``
    with the columns ``user`` (``item``) and ``external_id``; an id column kept as written
    (integers, a MovieLens item table) has none."""
    maps = {}
    for role, table in (("user", ratings.users), ("item", ratings.items)):
        if table is not None and list(table.columns) == [role, "external_id"]:
            maps[f"{role}s.csv"] = table
    return maps


def write_splits(splits: LetorSplits, out_dir: PathLike, *, parquet: bool = True,
                 svmlight: bool = True,
                 id_maps: dict[str, pd.DataFrame] | None = None) -> dict[str, object]:
    """Write already converted splits (see :func:`convert`); returns the summary.

    The files are written to a temporary folder inside ``out_dir`` and replace an earlier
    conversion's set only when all are complete (:func:`bench.data.atomic.replace_file_set`).
    """
    with replace_file_set(out_dir, OWNED_FILES) as tmp:
        files = []
        for name, table in (id_maps or {}).items():
            table.to_csv(Path(tmp) / name, index=False)
            files.append(name)
        return _write_splits(splits, Path(tmp), parquet=parquet, svmlight=svmlight,
                             extra=files)


#: Every file a conversion may write: a new conversion replaces them all as one set (an old
#: ``test.txt`` never sits beside a new ``train.txt``, nor an old ``.parquet`` beside new text).
OWNED_FILES = (*(f"{n}{ext}" for n in ("train", "vali", "test")
                  for ext in (".txt", ".txt.query", ".parquet")), "summary.json", "users.csv",
               "items.csv")


def foreign_outputs(out_dir: PathLike) -> list[str]:
    """The entries of ``out_dir`` a conversion would replace that no conversion wrote, each as
    ``name`` or ``name (a folder)`` / ``name (a file)`` when its kind is not what convert
    writes there: the files of :data:`OWNED_FILES` and the Dask shard folders ``train/``,
    ``vali/``, ``test/`` that neither the conversion record (``summary.json`` ``files``) nor
    the note of a conversion killed among its renames (:func:`bench.data.atomic.switch_note`)
    lists. A user's own LETOR folder (``convert --out ~/MQ2007/Fold1``) had its splits
    replaced by the conversion, exit 0."""
    from bench.adapters.splits import PARTITIONS
    from bench.data.atomic import switch_note

    out = Path(out_dir)
    if not out.is_dir():
        return []
    try:  # strict: a record naming "files" twice is no record (json kept the last list)
        record = loads_strict((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    files = record.get("files") if isinstance(record, dict) else None
    listed = {f for f in files if isinstance(f, str)} if isinstance(files, list) else set()
    listed |= switch_note(out)
    found = []
    for name in (*OWNED_FILES, *PARTITIONS):
        p = out / name
        if not os.path.lexists(p):
            continue
        folder = name in PARTITIONS
        if p.is_dir() != folder:
            found.append(f"{name} ({'a file' if folder else 'a folder'})")
        elif name not in listed and not any(f.startswith(f"{name}/") for f in listed):
            found.append(name)
    return found


def _write_splits(splits: LetorSplits, out: Path, *, parquet: bool,
                  svmlight: bool, extra: list[str]) -> dict[str, object]:
    files: list[str] = []
    parts: dict[str, object] = {}
    for name, data in splits.splits().items():
        if svmlight:
            path = out / f"{name}.txt"
            write_svmlight(data, path)
            files += [path.name, f"{path.name}.query"]
        if parquet:
            path = out / f"{name}.parquet"
            _parquet_writer()(data, path)
            files.append(path.name)
        parts[name] = _part_summary(data)
    summary: dict[str, object] = {
        "name": splits.name,
        "partitions": parts,
        "feature_names": list(splits.train.feature_names),
        "adapter": splits.meta.get("adapter"),
        "split_meta": {k: v for k, v in splits.meta.items()
                       if k not in ("adapter", "timings_s", "timings_cpu_s")},
        "timings_s": splits.meta.get("timings_s"),
        "inputs": dict(splits.inputs),
        "files": [*files, *extra, "summary.json"],
        "sha256": digests_of(out, files),  # the text and Parquet sets as one (data/split_sets)
        "stat": stats_of(out, files),
    }
    write_text(out / "summary.json", dumps(summary))  # strict JSON: a NaN of meta is null
    return summary


def _part_summary(data: LetorData) -> dict[str, object]:
    s = data.summary()
    labels = s["labels"]
    assert isinstance(labels, dict)  # LetorData.label_histogram()
    return {
        "queries": s["queries"],
        "rows": s["rows"],
        "features": s["features"],
        "labels": {str(int(k)): v for k, v in labels.items()},
        "blank_queries": s["blank_queries"],
        "rows_per_query": s["rows_per_query"],
    }


def _parquet_writer() -> Callable[[LetorData, PathLike], Path]:
    """``bench.data.parquet.write_parquet`` when present, else a plain pyarrow writer."""
    try:
        from bench.data.parquet import write_parquet
    except ImportError:  # pragma: no cover - the data helper's module is part of the package
        return _write_parquet_plain
    return write_parquet


def _write_parquet_plain(data: LetorData, path: PathLike) -> Path:  # pragma: no cover
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.atomic import atomic_path

    cols = {"qid": pa.array(data.qid), "label": pa.array(data.y)}
    if data.user is not None:
        cols["user"] = pa.array(data.user)
    if data.item is not None:
        cols["item"] = pa.array(data.item)
    for j, n in enumerate(data.feature_names):
        cols[n] = pa.array(np.ascontiguousarray(data.X[:, j]))
    with atomic_path(path) as tmp:
        pq.write_table(pa.table(cols), tmp)
    return Path(path)
