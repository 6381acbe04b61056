"""``load_dataset(spec)``: a catalogue name or a path -> :class:`~bench.data.letor.LetorSplits`.

``spec`` is a catalogue name (``NAME`` or ``NAME:OPTION``, see :mod:`bench.datasets.catalogue`)
when it is one and has no path characters, else a path:

- ``synthetic``: :func:`bench.datasets.synthetic.generate_ratings` (defaults), through the adapter;
- a ratings dataset (``ml-*``): :func:`bench.data.movielens.load_movielens` on the folder found
  in the data directory, then :func:`bench.adapters.ratings_to_letor` with the default
  :class:`bench.adapters.AdapterConfig`;
- a generated LETOR shape (``synthetic-mslr30k``, ``synthetic-yahoo``, ``synthetic-istella``, with
  ``:SCALE[,seed=N]``): :func:`bench.datasets.letor_shapes.ensure_letor_shape` writes it once
  into the data directory as a LETOR text folder in the real dataset's layout, which is then read
  by :func:`bench.data.folders.read_letor_folder` like the real files; ``NAME[:SCALE]:FoldK``
  is fold K of its five parts (:func:`bench.datasets.letor_shapes.ensure_shape_parts`, read by
  :func:`bench.datasets.folds.read_fold`);
- a LETOR dataset: :func:`bench.data.folders.read_letor_folder` (``ohsumed`` ->
  ``letor3-OHSUMED-QueryLevelNorm/Fold1``; ``mslr-web10k:Fold3`` picks a fold) or
  :func:`bench.data.folders.read_lightgbm_dir` (``lightgbm-lambdarank``: validation carved from
  ``rank.train`` by query, seed 0).

A path may be a LETOR folder (``Fold1/{train,vali,test}.txt`` or flat), a LightGBM example
folder, a folder of ``{train,vali,test}.parquet``, a MovieLens folder or ratings file, or any
CSV/TSV/Parquet ratings table whose header names the columns (``user``/``userId``/``user_id``,
``item``/``movieId``/``item_id``, optional ``rating`` and ``timestamp``).

For a catalogue dataset, the digests of the files read are compared with the card: a file that
differs from the card is an error (load it by path to use a modified copy on purpose). Every
split then passes :func:`bench.data.checks.check_letor` before any library sees it: labels
must suit exponential gain (integers 0..31), infinite features and repeated (user, item) rows are
errors, NaN features are allowed (LightGBM and XGBoost treat them as missing) and counted; the
reports are in ``meta["checks"]``.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bench.data.checks import check_letor
from bench.data.compressed import unreadable_parquet
from bench.data.folder_names import FOLD_NAME, locale_note, missing_note
from bench.data.folders import (
    detect_layout,
    find_split_files,
    near_miss,
    read_letor_folder,
    read_lightgbm_dir,
    read_parquet_folder,
)
from bench.data.groups import SORT_FILE_HINT, SORT_HINT
from bench.data.inputs import check_input_file, text_lines
from bench.data.letor import LetorSplits
from bench.data.movielens import load_movielens
from bench.data.ratings import Ratings
from bench.datasets.card_checks import check_against_card, check_card_shape, check_inputs
from bench.datasets.catalogue import (
    SHAPES_LOADER,
    DatasetSpec,
    card_names,
    catalogue_spec,
    load_catalogue,
    parse_spec,
)
from bench.datasets.folds import (
    N_FOLDS,
    check_folders_match_parts,
    fold_name,
    fold_number,
    fold_suffix,
    part_files,
    read_fold,
)
from bench.datasets.guessed_columns import guess_columns
from bench.datasets.locations import data_dirs, find_dataset, primary_data_dir
from bench.datasets.memory import check_fits, estimate_letor
from bench.errors import ConfigError, DataError, home_expanded

_MOVIELENS_FILES = ("ratings.csv", "u.data", "ratings.dat")


#: ``progress(text)``: what a long read is doing now (bytes and rows read so far).
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Reading:
    """How text files are read: the parsed-file cache (``None``: no cache) and progress."""

    cache_dir: Path | None = None
    progress: Progress | None = None

    def callback(self, files: list[Path], name: str) -> Callable[[int, int], None] | None:
        """The parser's ``progress(bytes_done, rows_done)`` reporting as text for ``name``."""
        if self.progress is None:
            return None
        total = sum(f.stat().st_size for f in files)
        report = self.progress

        def cb(done: int, rows: int) -> None:
            report(f"reading {name}: {done / 1e6:,.0f} of {total / 1e6:,.0f} MB, {rows:,} rows")

        return cb


def resolve_spec(spec: str | DatasetSpec) -> DatasetSpec:
    """The :class:`~bench.datasets.catalogue.DatasetSpec` of ``spec``, parsed once: a catalogue
    name when it is one and has no path characters, else an existing path; a missing path is a
    :class:`~bench.errors.DataError`, an unknown name a :class:`~bench.errors.ConfigError`
    listing the valid ones. A ``DatasetSpec`` is returned as it is."""
    if isinstance(spec, DatasetSpec):
        return spec
    if not spec.strip():  # Path("") is ".": the working folder would load unasked
        raise DataError("an empty dataset: expected a catalogue name or a path", path=repr(spec))
    if (shape_fold := _shape_fold(spec)) is not None:
        return shape_fold
    name, option = parse_spec(spec)
    looks_like_path = any(ch in spec for ch in ("/", "\\")) or spec.startswith(".") or "." in name
    if not looks_like_path and name in card_names():
        if os.path.lexists(name):  # the user's own ./ml-100k: said, never read in silence
            warnings.warn(f"dataset {spec!r} is a catalogue name: the catalogue's dataset is "
                          f"used, not {name!r} in the working directory (write ./{name} for "
                          "that one)", stacklevel=2)
        return catalogue_spec(spec, name, option)
    try:
        p = Path(home_expanded(spec, "dataset"))
    except ConfigError as exc:  # '~nosuchuser/x', or no HOME: a dataset path's error
        raise DataError(str(exc)) from None
    if p.exists():
        return DatasetSpec(spec, spec, path=p)
    if (fold := _path_fold(spec)) is not None:
        return fold
    if p.is_symlink():  # a link whose target is missing or a loop (``exists`` is False for both)
        raise DataError(f"a symbolic link to {os.readlink(p)!r}, which does not resolve (a "
                        "missing target or a link loop)", path=spec)
    if looks_like_path:
        raise DataError(f"no such file or folder (and not a catalogue name){missing_note(p)}",
                        path=spec if spec.isprintable() else repr(spec))  # a line end shown
    if note := locale_note(p):  # 'données' under LC_ALL=C: no unknown name, an unspellable one
        raise DataError(f"not a catalogue name, and no file or folder{note}", path=ascii(spec))
    return catalogue_spec(spec, name, option)  # unknown name: ConfigError lists valid ones


def _shape_fold(spec: str) -> DatasetSpec | None:
    """``NAME[:SCALE[,seed=N]]:FoldK`` of a generated LETOR shape (``synthetic-mslr30k:0.01:Fold3``):
    fold K of its five parts (:func:`bench.datasets.letor_shapes.ensure_shape_parts`), else
    ``None`` (not a shape with a fold after its last colon)."""
    head, fold = fold_suffix(spec)
    name, option = parse_spec(head if fold else spec.partition(":")[0])
    cards = load_catalogue()
    if name not in cards or cards[name].loader != SHAPES_LOADER:
        return None
    if fold is None or "fold" in (option or "").lower():
        if "fold" in spec.partition(":")[2].lower():  # a fold not last, or not FoldK, or twice
            raise ConfigError(f"dataset {spec!r}: a generated dataset's fold goes last, after "
                              f"its scale and seed: NAME[:SCALE[,seed=N]]:FoldK, K in "
                              f"1..{N_FOLDS} (e.g. {name}:0.01,seed=1:Fold3)")
        return None
    k = fold_number(spec, fold, name=name)
    return replace(catalogue_spec(head, name, option), text=spec, fold=f"Fold{k}",
                   option=f"{option}:Fold{k}" if option else f"Fold{k}")


def _path_fold(spec: str) -> DatasetSpec | None:
    """``PATH:FoldK`` (K in 1..5) for an existing LETOR root ``PATH``, else ``None``."""
    head, sep, option = spec.rpartition(":")
    root = Path(head).expanduser()
    if not sep or not head or not root.is_dir():
        return None
    folds = {f"fold{k}": f"Fold{k}" for k in range(1, N_FOLDS + 1)}
    fold = folds.get(option.strip().lower())
    if fold is None:
        raise ConfigError(f"dataset {spec!r}: {option!r} is not a fold of the LETOR root {head}; "
                          f"expected {head}:Fold1 .. {head}:Fold{N_FOLDS}")
    return DatasetSpec(spec, spec, path=root, fold=fold, option=fold)


def load_dataset(
    spec: str | DatasetSpec,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    cache: bool = True,
    progress: Progress | None = None,
) -> LetorSplits:
    """A dataset ready for training, from a catalogue name or a path (see the module docstring),
    or its :class:`~bench.datasets.catalogue.DatasetSpec` already resolved (:func:`resolve_spec`).

    ``cache``: keep parsed LETOR text files in ``<data dir>/cache`` (:mod:`bench.data.letor_cache`,
    keyed by each file's sha256), so the second load of a file is a memory map, not a parse.
    ``progress(text)`` is told what a long read is doing.
    """
    reading = Reading(primary_data_dir(data_dir) / "cache" if cache else None, progress)
    ds = resolve_spec(spec)
    try:
        if ds.card is not None:
            splits = _load_catalogue(ds, data_dir, reading)
        else:
            assert ds.path is not None
            splits = load_path(ds.path, reading=reading, fold=ds.fold if ds.option else None)
        return _checked(splits)
    except DataError as exc:  # no --sort-by-qid here: say what to do with the file itself
        if SORT_HINT not in exc.reason:
            raise
        raise DataError(exc.reason.replace(SORT_HINT, SORT_FILE_HINT), path=exc.path,
                        line=exc.line, row=exc.row, column=exc.column) from None


def load_path(path: str | os.PathLike[str], *, reading: Reading = Reading(),
              fold: str | None = None) -> LetorSplits:
    """Load a dataset given by path (no catalogue involved). ``fold`` (``"Fold3"``, from
    ``PATH:Fold3``) picks a fold of a LETOR root: its ``Fold3/`` folder, or the fold built from
    ``S1.txt..S5.txt`` (:func:`bench.datasets.folds.read_fold`); a root holding only the part
    files reads fold 1 when no fold is named."""
    if os.fspath(path) == "":  # Path("") is ".": the working folder would load unasked
        raise DataError("an empty path: expected a dataset folder or a ratings file", path="''")
    try:
        p = Path(home_expanded(os.fspath(path), "dataset"))
    except ConfigError as exc:  # '~nosuchuser/x', or no HOME: a dataset path's error
        raise DataError(str(exc)) from None
    if not p.is_dir():  # a missing path, a FIFO, a device, a symlink loop: named, never opened
        check_input_file(p, expected="a dataset folder or a ratings file")
    name = p.resolve().name
    if p.is_dir() and (fold is not None or (detect_layout(p) is None and part_files(p))):
        # NAME:FoldK for a fold other than the first, as a catalogue fold is named
        # (DatasetSpec.display_name): two folds of one root are two datasets in the tables
        shown = name if fold in (None, "Fold1") else fold_name(name, int(fold[4:]))
        check_folders_match_parts(p, (int((fold or "Fold1")[4:]),))  # as --folds checks it
        return _read_fold(p, shown, reading, fold or "Fold1")
    if p.is_dir():
        layout = detect_layout(p)
        if layout == "lightgbm":
            return read_lightgbm_dir(p, name=name, cache_dir=reading.cache_dir)
        if layout == "parquet":
            return read_parquet_folder(p, name=name)
        if layout == "letor":
            return _read_letor(p, _fold_folder_name(p), reading)
        try:
            ratings = load_movielens(p)
        except DataError:
            if _has_movielens_file(p):  # a MovieLens file that is bad: its own error says why
                raise
            why = near_miss(p, ratings_files=_MOVIELENS_FILES)
            raise DataError(
                f"not a dataset folder: {why}" if why else
                "not a dataset folder: expected Fold1/{train,vali,test}.txt, "
                "{train,vali,test}.txt, rank.train + rank.test, {train,vali,test}.parquet, or a "
                f"MovieLens folder (u.data, ratings.dat or ratings.csv); {_holds(p)}",
                path=p,
            ) from None
        return ratings_splits(ratings, name=name, progress=reading.progress)
    if p.name in _MOVIELENS_FILES:
        return ratings_splits(load_movielens(p), name=p.parent.resolve().name,
                              progress=reading.progress)
    return ratings_splits(_load_table_guessing_columns(p), name=p.stem, progress=reading.progress)


def _fold_folder_name(p: Path) -> str:
    """A LETOR folder's name in the tables; a fold folder (``MSLR-WEB10K/Fold3``) is named as
    ``MSLR-WEB10K:Fold3`` is (``Fold1``: the root's name), not ``Fold3``, which every LETOR
    dataset's third fold would share."""
    r = p.resolve()
    if not FOLD_NAME.fullmatch(r.name) or not r.parent.name:
        return r.name
    k = int(r.name[4:])
    return r.parent.name if k == 1 else fold_name(r.parent.name, k)


def _holds(p: Path) -> str:
    """What folder ``p`` holds, in a few names, so that a refusal says what was found."""
    names = sorted(f.name + ("/" if f.is_dir() else " (a broken symbolic link)"
                             if f.is_symlink() and not f.exists() else "")
                   for f in p.iterdir() if not f.name.startswith("."))
    if not names:
        return "it is empty"
    return f"it holds {', '.join(names[:6])}{' ...' if len(names) > 6 else ''}"


def _has_movielens_file(p: Path) -> bool:
    """Whether ``p`` (or the one folder inside it) holds a MovieLens ratings file."""
    inner = [d for d in p.iterdir() if d.is_dir() and not d.name.startswith(".")]
    folders = [p, *inner] if len(inner) == 1 else [p]
    return any((f / n).is_file() for f in folders for n in _MOVIELENS_FILES)


def ratings_splits(ratings: Ratings, *, name: str, progress: Progress | None = None) -> LetorSplits:
    """Ratings -> LETOR splits with the default adapter configuration; inputs keyed by full path.

    ``progress(text)`` is told each conversion stage as it starts (``"NAME: features (train)"``).
    """
    from bench.adapters import AdapterConfig, ratings_to_letor

    stage = None if progress is None else (lambda text: progress(f"{name}: {text}"))
    splits = ratings_to_letor(ratings, AdapterConfig(), progress=stage)
    inputs = _ratings_inputs(ratings)
    return replace(
        splits,
        name=name,
        inputs=inputs or dict(splits.inputs),
        meta={**splits.meta, "ratings_source": ratings.source, "ratings": ratings.summary()},
    )


def synthetic_splits(progress: Progress | None = None) -> LetorSplits:
    """The embedded default: synthetic ratings (default size, seed 0) through the adapter,
    built once per process (:func:`bench.datasets.built_once.built_once`: a deep copy per call)."""
    import bench.adapters
    from bench.datasets import synthetic
    from bench.datasets.built_once import built_once

    key = (synthetic.generate_ratings, bench.adapters.ratings_to_letor,
           bench.adapters.AdapterConfig)
    return built_once("synthetic", key, _build_synthetic, progress)


def _build_synthetic(progress: Progress) -> LetorSplits:
    from bench.datasets.synthetic import generate_ratings

    progress("synthetic: generating ratings")
    splits = ratings_splits(generate_ratings(), name="synthetic", progress=progress)
    return replace(
        splits,
        inputs={},
        meta={**splits.meta, "generator": "bench.datasets.synthetic.generate_ratings() (defaults)"},
    )


def letor_shape_splits(
    spec: str | DatasetSpec, *, data_dir: str | os.PathLike[str] | None = None, reading: Reading = Reading()
) -> LetorSplits:
    """A generated LETOR shape (``synthetic-mslr30k:0.01``) read back from its text folder.

    The folder is generated on first use (:func:`bench.datasets.letor_shapes.ensure_letor_shape`)
    and then read by the LETOR folder reader with the card's ``[splits]`` layout, as real files
    are (a shape without a validation file gets one carved from its training queries).
    """
    from bench.datasets.letor_shapes import (
        ensure_letor_shape,
        ensure_shape_parts,
        generation_record,
        shape_of,
        spec_name,
    )

    ds = resolve_spec(spec)
    card, scale, seed = ds.card, ds.scale, ds.seed
    if card is None or card.loader != SHAPES_LOADER:
        raise ConfigError(f"dataset {ds.text!r} is not a generated LETOR shape")
    record = generation_record(shape_of(card), scale, seed)
    if fold_suffix(ds.text)[1] is not None:  # one of its five folds, built from its parts
        parts = ensure_shape_parts(card, scale=scale, seed=seed, data_dir=data_dir)
        name = fold_name(spec_name(card.name, scale, seed), int(ds.fold[4:]))
        splits = _read_fold(parts, name, reading, ds.fold)
        return replace(splits, meta={**splits.meta, "card": card.name, "variant": None,
                                     "folder": str(parts.parent), "generated": record})
    folder = ensure_letor_shape(card, scale=scale, seed=seed, data_dir=data_dir)
    splits = _read_letor(folder, spec_name(card.name, scale, seed), reading, splits=card.splits)
    return replace(splits, meta={**splits.meta, "card": card.name, "variant": None,
                                 "folder": str(folder), "generated": record})


def _load_catalogue(
    spec: DatasetSpec, data_dir: str | os.PathLike[str] | None, reading: Reading
) -> LetorSplits:
    card = spec.card
    assert card is not None
    if card.loader == "synthetic":
        return synthetic_splits(reading.progress)
    if card.loader == SHAPES_LOADER:
        return letor_shape_splits(spec, data_dir=data_dir, reading=reading)
    folder = find_dataset(card, data_dir=data_dir)
    if folder is None:
        searched = ", ".join(str(d) for d in data_dirs(data_dir))
        how = (f"run 'ltrbench datasets fetch {card.spec}'" if card.downloadable
               else f"it has no automatic download: {card.notes}")
        raise DataError(
            f"dataset {card.spec!r} is not in the data directories ({searched}) under "
            f"{' or '.join(card.folder_names)}; {how}"
        )
    if card.loader == "movielens":
        ratings = load_movielens(folder, layout=card.layout or None)
        check_against_card(card, Path(ratings.source), ratings.sha256)
        splits = ratings_splits(ratings, name=card.spec, progress=reading.progress)
    elif card.loader == "lightgbm":
        splits = read_lightgbm_dir(folder, name=card.spec, cache_dir=reading.cache_dir)
        check_inputs(card, folder, splits.inputs)
    elif card.loader == "letor" and not (folder / spec.fold).is_dir() and part_files(folder):
        splits = _read_fold(folder, spec.display_name, reading, spec.fold)
        check_inputs(card, folder, splits.inputs)
    elif card.loader == "letor":
        try:
            splits = _read_letor(folder, spec.display_name, reading, fold=spec.fold,
                                 splits=card.splits or None)
        except DataError as exc:  # set 2's files where set 1's are looked for: say so
            if not exc.reason.endswith("is missing") or not (others := card.variants_in(folder)):
                raise
            raise DataError(f"{exc.reason}; the folder holds the files of {' and '.join(others)}"
                            f": ask for {others[0]!r}", path=exc.path) from None
        check_inputs(card, folder, splits.inputs)
    else:  # pragma: no cover - catalogue validation rejects other loaders
        raise ConfigError(f"card {card.name!r}: unknown loader {card.loader!r}")
    if card.kind == "letor":
        check_card_shape(card, splits)
    return replace(splits, meta={**splits.meta, "card": card.name,
                                 "variant": card.variant or None, "folder": str(folder)})


def _read_letor(
    folder: Path,
    name: str,
    reading: Reading,
    *,
    fold: str = "Fold1",
    splits: dict[str, str] | None = None,
) -> LetorSplits:
    """A LETOR folder, refused before reading when its run would not fit in the available memory."""
    files = [f for f in find_split_files(folder, fold=fold, splits=splits).values() if f is not None]
    check_fits(estimate_letor(files), what=name)
    return read_letor_folder(folder, fold=fold, splits=splits, name=name,
                             cache_dir=reading.cache_dir, progress=reading.callback(files, name))


def _read_fold(root: Path, name: str, reading: Reading, fold: str) -> LetorSplits:
    """Fold ``fold`` of a LETOR root (its folder, or built from the parts), memory checked."""
    parts = part_files(root)
    files = list(parts.values()) if parts is not None and not (root / fold).is_dir() else \
        [f for f in find_split_files(root, fold=fold).values() if f is not None]
    check_fits(estimate_letor(files), what=name)
    return read_fold(root, int(fold.removeprefix("Fold")), name=name,
                     cache_dir=reading.cache_dir, progress=reading.callback(files, name))


def _checked(splits: LetorSplits) -> LetorSplits:
    reports = {}
    for split, data in splits.splits().items():
        _, report = check_letor(data, gain="exp2", allow_nan=True,
                                path=data.source or f"{splits.name} ({split})")
        reports[split] = report.as_dict()
    return replace(splits, meta={**splits.meta, "checks": reports})


def _ratings_inputs(ratings: Ratings) -> dict[str, str]:
    src = Path(ratings.source) if ratings.source else None
    if src is None:
        return {}
    base = src if src.is_dir() else src.parent
    return {str(base / name): digest for name, digest in ratings.sha256.items()}


def _load_table_guessing_columns(p: Path) -> Ratings:
    from bench.data.tabular import load_ratings_table

    if p.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            columns = pq.read_schema(p).names
        except (pa.ArrowException, OSError) as exc:  # not Parquet, empty, truncated
            raise DataError(f"{unreadable_parquet(p, exc)}; expected a ratings table",
                            path=p) from None
        if "qid" in columns and "label" in columns:
            raise DataError("a single LETOR Parquet file: give the folder holding "
                            "train/vali/test.parquet", path=p)
    elif p.suffix.lower() not in (".csv", ".tsv", ".tab") and _looks_like_svmlight(p, empty=(
            p.suffix.lower() in (".txt", ".svm", ".svmlight", ".libsvm")
            or p.name.startswith("rank."))):  # x.dat, a text x.svm.gz, x: by the first line
        raise DataError("a single LETOR file: give the folder holding train/vali/test "
                        "(Fold1/ or flat) or rank.train/rank.test", path=p)
    elif p.suffix.lower() == ".toml":  # a config naming itself (or another) as its dataset
        raise DataError("a TOML file (a run config?), not a dataset: expected a catalogue name, "
                        "a dataset folder or a ratings table; a config goes to --config",
                        path=p)
    else:  # a ratings table, 'ratings.txt' with a header 'user<TAB>item<TAB>rating' too
        columns = _header(p)
    user, item, rating, time = guess_columns(columns, p)
    return load_ratings_table(p, user=user, item=item, rating=rating, timestamp=time)


def _looks_like_svmlight(p: Path, *, empty: bool = True) -> bool:
    """Whether the first data line of ``p`` is SVMlight (``label qid:Q i:v`` or ``label i:v``),
    not a ratings table's header: only then is a file called a single LETOR file. ``empty``:
    the answer for a file without a data line (a ``.txt``: the LETOR message says what to give)."""
    for _, raw in text_lines(p, expected="a dataset file"):
        tokens = raw.split()
        if tokens and not tokens[0].startswith(b"#"):
            return any(re.fullmatch(rb"qid:.*|[0-9]+:.*", t) for t in tokens[1:3])
    return empty


def _header(p: Path) -> list[str]:
    """The column names of a CSV/TSV ratings table's first line (its separator guessed), or a
    :class:`DataError` naming the file and line 1: an empty file, UTF-16/32, bytes that are not
    UTF-8 and a line without a separator are refused here rather than in pandas' sniffer."""
    import csv

    import pandas as pd

    lines = text_lines(p, expected="a ratings table (CSV, TSV or Parquet)")
    first = next(lines, None)
    if first is None:
        raise DataError("empty file: expected a header line naming the user and item columns",
                        path=p)
    try:
        return list(pd.read_csv(p, sep=None, engine="python", nrows=0,  # text as it is,
                                encoding="utf-8-sig", compression=None).columns)  # any name
    except (ValueError, csv.Error, pd.errors.ParserError) as exc:
        raise DataError(f"could not read a header ({exc}): expected column names separated by "
                        "',', ';', a tab or a space", path=p, line=first[0]) from None
