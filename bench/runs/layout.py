"""Files of a run directory and their columns: the one column list that writer and readers share.

Layout (every file is written atomically)::

    config.toml         the resolved RunConfig
    manifest.json       versions, platform, CPU, threads, seeds, git commit, input sha256s,
                        dataset summaries per split, started/finished timestamps, status
    metrics.csv         dataset, model, library, seed, split, metric, value, profile
    per_query.parquet   dataset, model, seed, split, qid, metric, value
    timings.csv         dataset, model, library, seed, fit_s, predict_s, peak_rss_mb,
                        best_iteration, n_trees, fit_cpu_s, other_load, steal_load,
                        contended, timing, repeats, fit_s_min, fit_s_max, fit_s_repeats
                        (fit_s: median over repeats; other_load: the machine's CPU used by
                        other processes during the fit, a fraction of its capacity;
                        contended: other load or steal above the thresholds of
                        bench.runners.resources; fit_s_repeats: ';'-separated seconds)
    evallog.csv         model, seed, iteration, split, metric, value   (library's own log)
    scores.parquet      model, seed, split, row, score                 (float64)
    labels.parquet      split, row, qid, label
    permute.csv         (with --permute-check) see bench.benchmark.permute
    status/<model>-seed<k>.json   completion marker, written last for each (model, seed)

After each (model, seed) the rows of that pair replace any earlier rows of the same pair in every
table (:func:`upsert_pair`), so a pair interrupted half-way and run again leaves no duplicates;
then its status file is written.

Every read of a table checks it (:func:`read_checked`): a file cut while written or copied, a
line with the wrong number of fields, text or infinity in a number column, a Parquet file that
is not one, a missing column, each a :class:`~bench.errors.DataError` naming the file, the line
(CSV) or row (Parquet) and the column, never a pandas traceback. So ``--resume`` over a damaged
run refuses before it writes (it never adds rows to a file it cannot read whole), and a table
that vanishes while the run writes (deleted by another program) is an error naming it rather
than a table silently started again without the pairs already done. A status file that is not
a JSON object is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import atomic_path, remove_orphans_in, write_text
from bench.data.compressed import unreadable_parquet
from bench.data.delimited import check_written_csv, refuse_cut_table
from bench.data.jsonio import dumps, read_json_object
from bench.errors import DataError
from bench.runs.timing_checks import check_timings


@dataclass(frozen=True)
class BlankVariant:
    """A blank-query variant of a run's profile in ``metrics.csv`` (the ``profile`` column reads
    ``<profile>-<tag>``): NDCG's mean with queries without a relevant document scored ``fill``
    (0: scikit-learn / trec_eval; 1: LightGBM / XGBoost, e.g. LightGBM ``rank_metric.hpp``
    ``if (max_dcg <= 0) result = 1``)."""

    tag: str
    fill: float

    def label(self, profile: str) -> str:
        """The ``profile`` column of this variant's rows."""
        return f"{profile}-{self.tag}"


#: The blank-query variants a run writes, in order (the one owner of the ``-blank0``/``-blank1``
#: labels; :func:`blank_variant_of` reads a label back).
BLANK_VARIANTS: tuple[BlankVariant, ...] = (BlankVariant("blank0", 0.0), BlankVariant("blank1", 1.0))


def blank_variant_of(label: str) -> tuple[str, BlankVariant | None]:
    """``"ltrbench-blank0"`` -> ``("ltrbench", BLANK_VARIANTS[0])``; a plain profile -> ``(label,
    None)``."""
    for variant in BLANK_VARIANTS:
        suffix = f"-{variant.tag}"
        if label.endswith(suffix):
            return label[: -len(suffix)], variant
    return label, None


def blank_fills(labels: pd.Series, profile: str) -> pd.Series:
    """For each ``profile`` label of a metrics table, the blank-query fill of its rows: 0.0 /
    1.0 for ``<profile>-blank0`` / ``-blank1``, NaN for every other label (``profile`` itself,
    whose rows are ``labels == profile``, and other profiles' rows). Read with
    :func:`blank_variant_of` once per distinct label."""
    def fill(label: str) -> float:
        base, variant = blank_variant_of(label)
        return variant.fill if base == profile and variant is not None else float("nan")

    text = labels.astype(str)
    mapping = {u: fill(u) for u in pd.unique(text)}
    return text.map(mapping).astype(np.float64)


@dataclass(frozen=True)
class TableSpec:
    """One table of a run directory: the columns written (in order) and those a reader needs."""

    name: str
    columns: tuple[str, ...]
    required: tuple[str, ...]
    #: columns that hold numbers (a reader refuses text there, naming the line and column);
    #: ``integers`` of them hold whole numbers and may not be empty
    numeric: tuple[str, ...] = ()
    integers: tuple[str, ...] = ()
    counts: tuple[str, ...] = ()  #: whole numbers that may be empty: written 3, never 3.0


TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        TableSpec(
            "metrics.csv",
            ("dataset", "model", "library", "seed", "split", "metric", "value", "profile"),
            ("dataset", "model", "seed", "split", "metric", "value"),
            ("seed", "value"), ("seed",),
        ),
        TableSpec(
            "per_query.parquet",
            ("dataset", "model", "seed", "split", "qid", "metric", "value"),
            ("model", "seed", "split", "qid", "metric", "value"),
            ("seed", "value"), ("seed",),
        ),
        TableSpec(
            "timings.csv",
            ("dataset", "model", "library", "seed", "fit_s", "predict_s", "peak_rss_mb",
             "best_iteration", "n_trees", "fit_cpu_s", "other_load", "steal_load", "contended",
             "timing", "repeats", "fit_s_min", "fit_s_max", "fit_s_repeats"),
            ("model", "seed", "fit_s"),
            ("seed", "fit_s", "predict_s", "peak_rss_mb", "best_iteration", "n_trees",
             "fit_cpu_s", "other_load", "steal_load", "repeats", "fit_s_min", "fit_s_max"),
            ("seed",), ("best_iteration", "n_trees", "repeats"),
        ),
        TableSpec(
            "evallog.csv",
            ("model", "seed", "iteration", "split", "metric", "value"),
            ("model", "seed", "iteration", "split", "metric", "value"),
            ("seed", "iteration", "value"), ("seed", "iteration"),
        ),
        TableSpec(
            "scores.parquet",
            ("model", "seed", "split", "row", "score"),
            ("model", "seed", "split", "row", "score"),
            ("seed", "row", "score"), ("seed", "row"),
        ),
        TableSpec("labels.parquet", ("split", "row", "qid", "label"), ("split", "row", "qid", "label"),
                  ("row", "label"), ("row",)),
    )
}
#: Tables written once per (model, seed) by the benchmark (labels.parquet is written once per run).
PAIR_TABLES: tuple[str, ...] = (
    "metrics.csv", "per_query.parquet", "timings.csv", "evallog.csv", "scores.parquet",
)

#: Where ``run``, ``report``, ``crosscheck`` and ``tune`` write by default: a folder git ignores,
#: so a user's runs never change the committed results nor make the checkout dirty.
LOCAL_RESULTS = "results/local"
#: The committed results (leaderboards, their runs, cross-checks, perf figures): written only
#: on purpose (``--out results``, ``report --publish``).
PUBLISHED_RESULTS = "results"
#: What ``run`` writes over in its ``--out`` folder besides its new run directory: the
#: cross-check files of each dataset (:func:`bench.crosscheck.run.write_crosscheck`).
RUN_WRITES = ("*/crosscheck.md", "*/crosscheck.json")


#: The sub-folder of ``run``'s ``--out`` that it creates and fills: ``runs/<run-id>/``.
RUN_INTO = ("runs",)
#: The inputs of ``run`` (options of :func:`run_inputs`) whose folders it never writes into: a
#: dataset given as a path. The config file's folder is not one (``--resume`` reads the config
#: of the run folder it writes into), nor ``--data-dir``: ltrbench's own store, where it keeps
#: its parsed-file cache.
RUN_SEALED = ("--dataset", "the dataset of --config")


def run_writes(args: Any) -> tuple[str, ...]:
    """What ``run`` writes into its ``--out`` folder besides ``runs/``: :data:`RUN_WRITES`, or
    nothing with ``--no-crosscheck`` (the cross-check files are the only such writes)."""
    return () if getattr(args, "no_crosscheck", False) else RUN_WRITES


def run_inputs(args: Any) -> list[tuple[str, str | None]]:
    """The ``(option, path)`` inputs of ``run`` / ``tune`` for the output checks of
    :mod:`bench.data.outputs`: the config file, a dataset given as a path, the data folder."""
    out = [(opt, getattr(args, key, None)) for opt, key in (
        ("--config", "config"), ("--dataset", "dataset"), ("--data-dir", "data_dir"))]
    if getattr(args, "dataset", None) is None:
        out.append(("the dataset of --config", _config_dataset(getattr(args, "config", None))))
    return out


def _config_dataset(config: str | None) -> str | None:
    """The ``dataset`` of a TOML config file, when it is readable and names one as text (the
    config's own validation reports anything else, later); ``None`` otherwise."""
    from bench.data.toml import TOMLDecodeError, loads  # the one TOML parser (tomli on 3.10)

    if config is None or not Path(config).is_file():
        return None
    try:
        doc = loads(Path(config).read_text(encoding="utf-8"))
    except (OSError, UnicodeError, TOMLDecodeError):
        return None
    value = doc.get("dataset")
    return value if isinstance(value, str) else None


def columns_of(name: str) -> tuple[str, ...]:
    """The written columns of table ``name`` (empty for a file outside :data:`TABLES`)."""
    spec = TABLES.get(name)
    return spec.columns if spec else ()


def empty_table(name: str) -> pd.DataFrame:
    """An empty frame with the columns of table ``name``."""
    return pd.DataFrame({c: [] for c in columns_of(name)})


def read_table(path: Path) -> pd.DataFrame:
    """A run table (csv or parquet) as written, checked (:func:`read_checked`); an empty frame
    with its columns when absent."""
    if not path.is_file():
        return empty_table(path.name)
    return read_checked(path)


#: What a damaged run file's error tells the user to do.
_DAMAGED = ("the file is damaged (cut or changed outside ltrbench): start a new run, or leave "
            "this run out")


def read_checked(path: Path) -> pd.DataFrame:
    """Read a run table, checking the columns its readers need (:data:`TABLES`) and the values
    of its number columns; a :class:`~bench.errors.DataError` naming the file (line or row,
    column) for anything else."""
    is_csv = path.suffix != ".parquet"
    try:
        if is_csv:
            header = _check_csv_shape(path)
            frame = pd.read_csv(path, skip_blank_lines=False)
            while len(frame) and frame.iloc[-1].isna().all():  # blank lines at the end
                frame = frame.iloc[:-1]
            frame = _text_as_written(path, header, frame)
        else:
            frame = pd.read_parquet(path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, DataError) or (isinstance(exc, OSError) and not path.is_file()):
            raise
        why = unreadable_parquet(path, exc) if not is_csv else \
            f"cannot read ({type(exc).__name__}: {' '.join(str(exc).split())})"
        raise DataError(f"{why}; {_DAMAGED}", path=path) from exc
    spec = TABLES.get(path.name)
    required = spec.required if spec else ()
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)}; expected at least "
                        f"{', '.join(required)}; {_DAMAGED}", path=path)
    frame = _checked_values(frame, path, spec, is_csv) if spec is not None else frame
    if path.name == "timings.csv":
        check_timings(frame, path)  # times at least 0, flags true/false (bench.runs.timing_checks)
    return frame


def write_table(path: Path, frame: pd.DataFrame) -> None:
    """Write a run table atomically, columns in contract order (other files as given)."""
    cols = columns_of(path.name)
    if cols:
        frame = frame.reindex(columns=list(cols))
    frame = _counts_as_integers(frame, TABLES.get(path.name))
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)


def _counts_as_integers(frame: pd.DataFrame, spec: TableSpec | None) -> pd.DataFrame:
    """``spec.counts`` holding whole numbers as nullable integers (a LightGBM ``best_iteration``
    beside a baseline's empty cell was written ``3.0``, which ``int()`` refuses)."""
    out = {}
    for c in [c for c in (spec.counts if spec else ()) if c in frame.columns]:
        v = pd.to_numeric(frame[c], errors="coerce")
        whole = v.dropna()
        if v.notna().sum() == frame[c].notna().sum() and ((whole % 1 == 0)
                                                          & (whole.abs() <= 2.0**53)).all():
            out[c] = v.astype("Int64")
    return frame.assign(**out) if out else frame


def upsert_pair(path: Path, new: pd.DataFrame, model: str, seed: int) -> None:
    """Replace the rows of ``(model, seed)`` in table ``path`` by ``new`` (atomically).

    The table must exist (:func:`ensure_tables` made it when the run began): one that vanished
    while the run wrote is an error, not a new table without the rows of the pairs done."""
    if not path.is_file():
        raise DataError("vanished while the run was writing it (deleted or moved by another "
                        "program?); the rows of the pairs done before are gone with it: start "
                        "a new run", path=path)
    old = read_checked(path)
    if len(old):
        keep = ~((old["model"].astype(str) == model) & (old["seed"].astype(np.int64) == seed))
        old = old[keep]
    parts = [f for f in (old, new) if len(f)]
    frame = pd.concat(parts, ignore_index=True) if parts else new
    write_table(path, frame)


def ensure_tables(run_dir: Path, labels: pd.DataFrame) -> None:
    """Create every per-pair table (empty) and ``labels.parquet`` where they do not exist yet.

    In a run with pairs done (a resumed run) every table is read and checked first, before
    anything is written: a damaged one, or one missing although pairs are done, is a
    :class:`~bench.errors.DataError` naming it (a resume would add rows to a file it cannot
    read whole, or start a table again without the pairs done)."""
    status = run_dir / "status"
    if status.exists() and not status.is_dir():
        raise DataError("is not a folder (the run's status files go there); the run directory "
                        "is damaged: start a new run", path=status)
    for folder in (run_dir, status):
        if folder.is_dir():
            remove_orphans_in(folder)  # temporaries of a writer killed mid-write
    done = read_status(run_dir)
    for name in (*PAIR_TABLES, "labels.parquet"):
        path = run_dir / name
        if path.is_file():
            if done or name == "labels.parquet":
                frame = read_checked(path)
                if name in _ROWS_OF_EVERY_PAIR:
                    _check_done_rows(path, frame, done)
        elif done:
            raise DataError(f"is missing although {len(done)} pair(s) of the run are done "
                            f"({', '.join(sorted(done)[:3])}{', ...' if len(done) > 3 else ''}); "
                            "their rows are gone with it: start a new run", path=path)
    for name in PAIR_TABLES:
        if not (run_dir / name).is_file():
            write_table(run_dir / name, empty_table(name))
    if not (run_dir / "labels.parquet").is_file():
        with atomic_path(run_dir / "labels.parquet") as tmp:
            labels.to_parquet(tmp, index=False)
    status.mkdir(exist_ok=True)


#: The tables in which every pair done has rows, as many as every other pair done (the same
#: metrics, queries and documents for every model and seed).
_ROWS_OF_EVERY_PAIR = ("metrics.csv", "per_query.parquet", "scores.parquet")


def _check_done_rows(path: Path, frame: pd.DataFrame, done: dict[str, dict[str, Any]]) -> None:
    """Every pair whose status file says done has its rows in ``path``, as many as the other
    pairs done: a row deleted (or a table replaced by an older copy) between a kill and a
    ``--resume`` made the resumed run finish without them, exit 0."""
    if "profile" in frame.columns:  # the blank-query variants' rows follow the values
        profiles = frame["profile"].astype(str)  # read once per distinct label, not per row
        frame = frame[profiles.isin([p for p in pd.unique(profiles)
                                     if blank_variant_of(p)[1] is None]).to_numpy()]
    counts = frame.groupby([frame["model"].astype(str), frame["seed"].astype(np.int64)]).size()
    have: dict[str, int] = {}
    for key, body in done.items():
        if body.get("status") != "done":
            continue  # a skipped pair wrote no rows
        model, seed = body.get("model"), body.get("seed")
        n = int(counts.get((str(model), seed), 0)) if isinstance(seed, int) else 0
        if n == 0 or status_key(str(model), seed if isinstance(seed, int) else -1) != key:
            raise DataError(f"no rows of model {model!r}, seed {seed} although its status file "
                            f"status/{key}.json says done: rows were deleted or the status file "
                            f"is not this pair's; delete status/{key}.json to train the pair "
                            "again with --resume, or start a new run", path=path)
        have[key] = n
    if len(set(have.values())) > 1:
        (a, na), (b, nb) = sorted(have.items(), key=lambda kv: kv[1])[0], max(
            have.items(), key=lambda kv: kv[1])
        raise DataError(f"{na} row(s) for pair {a} where pair {b} has {nb}: every pair done "
                        "has the same rows (rows were deleted or added by hand); delete "
                        f"status/{a}.json to train that pair again with --resume, or start "
                        "a new run", path=path)


def status_key(model: str, seed: int) -> str:
    """``<model>-seed<k>``: the name of a (model, seed) pair in status files and manifests."""
    return f"{model}-seed{seed}"


def status_path(run_dir: Path, model: str, seed: int) -> Path:
    """The completion marker of ``(model, seed)``."""
    return run_dir / "status" / f"{status_key(model, seed)}.json"


def write_status(run_dir: Path, model: str, seed: int, body: dict[str, Any], *, finished: str) -> None:
    """Write the status file of ``(model, seed)`` (the last write of a pair)."""
    doc = {"model": model, "seed": seed, **body, "finished": finished}
    write_text(status_path(run_dir, model, seed), dumps(doc))


def read_status(run_dir: str | Path) -> dict[str, dict[str, Any]]:
    """Every status file of a run, by ``<model>-seed<k>``; one that is not a JSON object (cut,
    or changed outside ltrbench) is a :class:`~bench.errors.DataError` naming it."""
    out = {}
    for p in sorted((Path(run_dir) / "status").glob("*.json")):
        out[p.stem] = read_json_object(p, "a pair's status file",
                                       "delete it to train that pair again with --resume")
    return out


def status_summary(status: dict[str, dict[str, Any]]) -> dict[str, str]:
    """``{pair: "done" | "skipped: <reason>"}`` from :func:`read_status`."""
    return {
        k: ("done" if v.get("status") == "done" else f"skipped: {v.get('reason', '')}")
        for k, v in status.items()
    }


def _text_as_written(path: Path, header: list[str], frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the text columns of a run CSV as written: a dataset or model named ``NA``,
    ``null``, ``nan``, ``007``, ``+1`` or ``True`` (``--name`` takes any printable text) is that
    text, never a missing value or a number. Only a text column pandas read as numbers or with a
    missing value is read again, as text (the common file costs one check per column)."""
    spec = TABLES.get(path.name)
    if spec is None:
        return frame
    again = [c for c in header if c in spec.columns and c not in spec.numeric
             and c in frame.columns and (not (frame[c].dtype == object
                                              or pd.api.types.is_string_dtype(frame[c]))
                                         or frame[c].isna().any())]
    if not again:
        return frame
    text = pd.read_csv(path, skip_blank_lines=False, usecols=again, dtype=str,
                       keep_default_na=False)
    # the same lines, less the blank ones at the end that the caller dropped
    return frame.assign(**{c: text[c].to_numpy()[:len(frame)] for c in again})


def _check_csv_shape(path: Path) -> list[str]:
    """Refuse a run CSV whose last line has no line end (cut while written or copied: its last
    number may be cut too) or whose lines do not all have the header's number of fields; the
    header's column names."""
    import csv

    try:  # empty, compressed, UTF-16, a NUL or FF: named, as every reader names them
        check_written_csv(path, from_line=2)  # the header's names: said below, by name
    except DataError as exc:
        raise DataError(f"cannot read: {exc.reason}; {_DAMAGED}", path=path, line=exc.line) from None
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        names = [h.removeprefix("\ufeff") if i == 0 else h  # a byte-order mark is read
                 for i, h in enumerate(header)]
        odd = [h for h in names if not h.isprintable()]  # a NUL in 'profile' hid the column
        if odd:
            raise DataError(f"column name {odd[0]!r} in the header holds a control character; "
                            f"{_DAMAGED}", path=path, line=1)
        twice = sorted({h for h in header if header.count(h) > 1})
        if twice:
            raise DataError(f"column(s) {', '.join(map(repr, twice))} appear more than once in "
                            f"the header ({', '.join(header)}); {_DAMAGED}", path=path, line=1)
        for fields in reader:
            if fields and len(fields) != len(header):
                raise DataError(f"{len(fields)} field(s) where the header has {len(header)} "
                                f"({', '.join(header)}): a damaged or truncated line",
                                path=path, line=reader.line_num)
    refuse_cut_table(path, "run the benchmark again")
    return names


def _checked_values(frame: pd.DataFrame, path: Path, spec: TableSpec,
                    is_csv: bool) -> pd.DataFrame:
    """``frame`` with its numeric columns as numbers, or a :class:`DataError` naming the file,
    the line (CSV: header = line 1) or row (Parquet), the column and the value found. Columns
    already numeric are checked in place (no copy of a large scores table)."""

    def where(i: int) -> dict[str, int]:
        return {"line": i + 2} if is_csv else {"row": i + 1}

    for col in spec.required:
        blank = frame[col].isna()
        if col not in spec.numeric and (pd.api.types.is_string_dtype(frame[col])
                                        or frame[col].dtype == object):  # "   " is no name either
            distinct = pd.unique(frame[col].dropna())  # a few names over many rows: strip those
            empty = [v for v in distinct if isinstance(v, str) and not v.strip()]
            if empty:
                blank |= frame[col].isin(empty).to_numpy()
        if col not in spec.numeric and blank.any():
            i = int(blank.to_numpy().argmax())
            raise DataError(f"empty {col!r}: every row needs one (blank text is empty)", path=path,
                            column=col,
                            **where(i))
    changed: dict[str, pd.Series] = {}
    for col in spec.numeric:
        if col not in frame.columns:
            continue
        raw = frame[col]
        if pd.api.types.is_bool_dtype(raw):
            values = pd.Series(np.nan, index=raw.index)
        elif pd.api.types.is_numeric_dtype(raw):
            values = raw
        else:
            values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & raw.notna()
        if col in spec.integers and not pd.api.types.is_integer_dtype(values):
            bad |= values.isna() | (values != np.floor(values))
        as_float = values.to_numpy(dtype=float, na_value=np.nan)
        bad |= np.isinf(as_float)
        if col in spec.integers:  # "99999999999999999999999" would wrap to -2**63 as int64
            bad |= np.abs(as_float) >= 2.0**63
        if bad.any():
            i = int(bad.to_numpy().argmax())
            want = ("a whole number (below 2**63)" if col in spec.integers
                    else "a finite number (or empty)")
            found = raw.iloc[i]  # a NumPy scalar shown as the file wrote it, not np.float64(..)
            found = found.item() if isinstance(found, np.generic) else found
            raise DataError(f"{col!r} is {found!r}: expected {want}", path=path,
                            column=col, **where(i))
        if values is not raw or (col in spec.integers
                                 and not pd.api.types.is_integer_dtype(values)):
            changed[col] = (values.astype(np.int64) if col in spec.integers
                            else values.astype(float))
    return frame.assign(**changed) if changed else frame
