"""SVMlight / LETOR text files: ``label qid:Q index:value ... # comment``.

Reading uses ltrbench's compiled parser (:mod:`bench.data.svmlight_parse`: strict plain
decimal numbers, errors naming file, line, column and token; the numbers sklearn's
``load_svmlight_file`` gives for valid files) and, when a ``cache_dir`` is given, the
content-addressed binary cache of :mod:`bench.data.letor_cache` (``cache_dir=None``: no cache).
Features are dense float32 (feature ``j`` is column ``j - 1``), labels float64, query ids int64.
Files without ``qid:`` (LightGBM's ``examples/lambdarank``) take group sizes from a ``.query``
sidecar, one size per line (``rank.train`` -> ``rank.train.query``); a file with ``qid:`` and a
sidecar must group its rows alike (both are written here), else the two are named.

Writing produces the same format (1-based feature indices, ``qid:``) plus the ``.query``
sidecar, atomically.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from bench.data.atomic import atomic_path
from bench.data.compressed import HEAD
from bench.data.folder_names import missing_note
from bench.data.groups import offsets_from_qid, offsets_from_sizes, stable_order_by_qid
from bench.data.inputs import bom_length, check_input_file, parse_int, text_lines
from bench.data.inputs import line_of_data_row as data_row_line
from bench.data.letor import LetorData
from bench.data.letor_cache import cached_parse
from bench.data.svmlight_parse import MAX_FEATURE_INDEX, ParsedSvmlight, Progress
from bench.errors import DataError

PathLike = str | os.PathLike[str]
_BOM = b"\xef\xbb\xbf"
#: A file whose largest feature index is at least this, with under 1% of its columns used, is
#: said (:class:`WideMatrixWarning`): every row costs 4 bytes per column, used or not.
WIDE_INDEX = 100_000


class WideMatrixWarning(UserWarning):
    """A file's largest feature index makes a dense matrix whose columns are mostly unused
    (hashed or crawled feature ids): read as written, and said."""


def query_sidecar(path: PathLike) -> Path:
    """The LightGBM group-size sidecar of a data file: ``<path>.query``."""
    return Path(f"{os.fspath(path)}.query")


def read_svmlight(
    path: PathLike,
    *,
    query_path: PathLike | None = None,
    n_features: int | None = None,
    sort_by_qid: bool = False,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
    features: bool = True,
) -> LetorData:
    """Read one SVMlight/LETOR file into a :class:`LetorData`.

    Groups come from ``qid:`` when the file has them, else from ``query_path`` or the
    ``<path>.query`` sidecar. Without either, a :class:`DataError` says so; so does a
    ``query_path`` given for a file with ``qid:`` (it would be ignored).
    ``sort_by_qid`` reorders rows so that each query is contiguous (rows of a query keep their
    file order); without it, a non-contiguous file is an error naming the first offending line.
    When sorting moved rows, ``meta["file_order"]`` holds the permutation applied (int64: row
    ``i`` of the result is data row ``file_order[i]`` of the file, counted from 0); it is absent
    when the rows kept their file order. :func:`line_of_data_row` turns a data row into its line.

    ``X`` has ``max(n_features, largest index)`` columns (none for a file without features, as
    in Parquet: :func:`bench.data.svmlight_parse.parse_svmlight`); an index above ``n_features`` or
    ``max_index`` is an error naming its line. ``cache_dir`` (``None``: no cache) is where parsed
    arrays are kept, keyed by the file's sha256; ``progress(bytes_done, rows_done)`` is called
    while parsing (see :func:`bench.data.svmlight_parse.rich_progress`); ``threads`` defaults to
    the CPUs available. ``features=False`` reads labels and query ids only (every line is still
    checked): ``X`` has no columns, whatever the indices.
    """
    p = Path(path)
    _check_readable(p)
    if not features:  # labels and queries only (evaluate): no matrix, no cache entry
        from bench.data.svmlight_parse import parse_svmlight

        parsed = parse_svmlight(p, threads=threads, progress=progress, features=False)
        return _to_letor(p, parsed, query_path, sort_by_qid)
    (parsed,), _ = cached_parse([p], cache_dir=cache_dir, n_features=n_features,
                                max_index=max_index, threads=threads, progress=progress)
    return _to_letor(p, parsed, query_path, sort_by_qid)


def read_svmlight_files(
    paths: list[PathLike],
    *,
    sort_by_qid: bool = False,
    query_paths: list[PathLike | None] | None = None,
    n_features: int | None = None,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
) -> list[LetorData]:
    """Read several files with one shared feature count (train/vali/test of a LETOR fold).

    The feature count is the largest index in any of the files (or ``n_features``), so a
    feature that never occurs in the test file still has its column there. ``query_paths``
    gives a group-size file per path (``None`` entries: the ``<path>.query`` sidecar).
    ``cache_dir``, ``progress`` (bytes and rows over all the files), ``threads`` and
    ``max_index`` as in :func:`read_svmlight`.
    """
    data, _ = read_svmlight_files_with_digests(
        paths, sort_by_qid=sort_by_qid, query_paths=query_paths, n_features=n_features,
        cache_dir=cache_dir, progress=progress, threads=threads, max_index=max_index)
    return data


def read_svmlight_files_with_digests(
    paths: list[PathLike],
    *,
    sort_by_qid: bool = False,
    query_paths: list[PathLike | None] | None = None,
    n_features: int | None = None,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
) -> tuple[list[LetorData], list[str]]:
    """:func:`read_svmlight_files`, plus the hex sha256 of each file (for run manifests).

    The digests are computed once, in parallel, and are the cache keys when ``cache_dir`` is set.
    """
    ps = [Path(p) for p in paths]
    qps = list(query_paths) if query_paths is not None else [None] * len(ps)
    if len(qps) != len(ps):
        raise DataError(f"{len(qps)} query files for {len(ps)} data files")
    for p in ps:
        _check_readable(p)
    parsed, digests = cached_parse(ps, cache_dir=cache_dir, n_features=n_features,
                                   max_index=max_index, threads=threads, progress=progress,
                                   digests=True)
    out = [_to_letor(p, d, qp, sort_by_qid) for p, d, qp in zip(ps, parsed, qps, strict=True)]
    return out, list(digests or [])


def write_svmlight(
    data: LetorData, path: PathLike, *, query_file: bool = True, comment: str | None = None
) -> Path:
    """Write ``data`` as SVMlight with ``qid:`` (and a ``.query`` sidecar), atomically.

    Zero-valued features are omitted, as the format allows; feature indices are 1-based.
    """
    from sklearn.datasets import dump_svmlight_file  # here: scikit-learn takes 0.8 s to load

    p = Path(path)
    with atomic_path(p) as tmp:  # both files complete before either replaces the earlier pair
        dump_svmlight_file(data.X, data.y, str(tmp), zero_based=False, query_id=data.qid,
                           comment=comment)
        with open(tmp, "rb+") as fh:  # a full disk said here, the earlier pair left whole
            os.fsync(fh.fileno())
        if query_file:
            with atomic_path(query_sidecar(p)) as side:
                side.write_text("".join(f"{s}\n" for s in data.group_sizes.tolist()))
    return p


def _to_letor(
    p: Path,
    parsed: ParsedSvmlight,
    query_path: PathLike | None,
    sort_by_qid: bool,
) -> LetorData:
    dense, y, qid = parsed.X, parsed.y, parsed.qid
    if y.shape[0] == 0:
        raise DataError("no data lines (empty file)", path=p)
    if not np.all(np.isfinite(y)):  # the parser refuses these; kept as a guard
        bad = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"label {float(y[bad])} is not a finite number", path=p, row=bad + 1)
    _say_wide(p, parsed)
    names = tuple(f"f{j + 1}" for j in range(dense.shape[1]))
    meta: dict[str, object] = {"qids": "file"}  # the file's own ids (read by split_checks)
    if qid is not None and query_path is not None:
        raise DataError(
            f"the file has 'qid:' fields, so the group sizes in {os.fspath(query_path)!r} would be "
            "ignored; give a group-size file (--query) only for a file without 'qid:'",
            path=p,
        )
    if qid is not None:
        _sidecar_agrees(p, qid)
        if sort_by_qid:
            order = stable_order_by_qid(qid)
            if not np.array_equal(order, np.arange(order.shape[0])):
                dense, y, qid = dense[order], y[order], qid[order]
                meta["file_order"] = order
        try:
            offsets, _ = offsets_from_qid(qid, path=p)
        except DataError as exc:
            if exc.row is None:
                raise
            raise DataError(exc.reason, path=p, line=line_of_data_row(p, exc.row),
                            row=exc.row) from None
        return LetorData(
            X=dense,
            y=y,
            qid=qid,
            offsets=offsets,
            feature_names=names,
            source=str(p),
            meta=meta,
        )
    if query_path is not None:
        qp = check_input_file(query_path, expected="a group-size file (one size per line)")
    else:
        qp = query_sidecar(p)
    if os.path.lexists(qp):  # a folder, a FIFO or a dangling link named as such, not "missing"
        check_input_file(qp, expected="a group-size file (one size per line)")
    if not qp.is_file():
        group = Path(f"{os.fspath(p)}.group")  # XGBoost's name for the same file
        seen = (f" ({group.name} beside it, XGBoost's name, is not read: give it with --query "
                f"{group.name})") if os.path.lexists(group) else ""
        raise DataError(
            f"the file has no 'qid:' fields and no group-size file {qp.name} beside it{seen}"
            f"{missing_note(qp)}; "
            "give one with --query FILE (one group size per line)",
            path=p,
        )
    sizes = _read_sizes(qp)
    offsets = offsets_from_sizes(sizes, y.shape[0], path=qp)
    qids = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    return LetorData(
        X=dense,
        y=y,
        qid=qids,
        offsets=offsets,
        feature_names=names,
        source=str(p),
    )


def _say_wide(p: Path, parsed: ParsedSvmlight) -> None:
    """:class:`WideMatrixWarning` when this file's largest index (at least :data:`WIDE_INDEX`)
    makes the matrix's width and under 1% of the columns hold a value in this file."""
    width = parsed.X.shape[1]
    if parsed.max_index < WIDE_INDEX or parsed.max_index != width:
        return
    used = int(np.count_nonzero(parsed.X.any(axis=0)))
    if used * 100 >= width:
        return
    warnings.warn(f"{p}:{parsed.max_index_line}: feature index {parsed.max_index:,} makes "
                  f"{width:,} dense float32 columns ({4 * width / 1e6:,.1f} MB a row, and a "
                  f"name each), {used:,} of them hold a value in this file: are the indices "
                  f"hashed or crawled ids? Renumber the features 1..{max(used, 1):,} to train "
                  "on them", WideMatrixWarning, stacklevel=4)


def _sidecar_agrees(p: Path, qid: np.ndarray) -> None:
    """A file with ``qid:`` and a ``<file>.query`` sidecar beside it: the two must give one
    grouping (ltrbench writes both), since a tool reading the sidecar (LightGBM's
    ``examples/lambdarank`` layout) and one reading ``qid:`` would otherwise rank other groups
    than ltrbench does without a word; group sizes that differ are an error naming both."""
    qp = query_sidecar(p)
    if not os.path.lexists(qp):
        return
    sizes = _read_sizes(check_input_file(qp, expected="a group-size file (one size per line)"))
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    runs = np.diff(np.r_[starts, qid.shape[0]])
    if not np.array_equal(runs, sizes):
        k = next((i for i in range(min(runs.shape[0], sizes.shape[0])) if runs[i] != sizes[i]),
                 min(runs.shape[0], sizes.shape[0]))
        said = (f"group {k + 1} has {runs[k]} rows by 'qid:' and {sizes[k]} in {qp.name}"
                if k < min(runs.shape[0], sizes.shape[0]) else
                f"'qid:' gives {runs.shape[0]} groups, {qp.name} {sizes.shape[0]}")
        raise DataError(f"the file has 'qid:' fields and {qp.name} beside it gives other group "
                        f"sizes ({said}): a tool reading one or the other would rank other "
                        f"groups; remove {qp.name} or make it agree", path=p)


def _refuse_lightgbm_side_files(p: Path) -> None:
    """``<file>.weight`` (row weights) and ``<file>.init`` (initial scores) beside a data file:
    LightGBM loads them by themselves when they exist (LightGBM ``docs/Parameters.rst``, "Weight
    Data" and "Continued Training with Input Score"), ltrbench trains every library unweighted
    and from zero, so the numbers would differ from LightGBM's own run without a word."""
    for suffix, what in ((".weight", "row weights"), (".init", "initial scores")):
        side = Path(f"{os.fspath(p)}{suffix}")
        if os.path.lexists(side):
            raise DataError(f"{side.name} beside the data holds {what}, which LightGBM reads by "
                            "itself and ltrbench does not (every library trains unweighted, "
                            "from zero): move or rename it to train here", path=p)


def _read_sizes(qp: Path) -> np.ndarray:
    sizes = []
    for lineno, raw in text_lines(qp, expected="a group-size file (one size per line)"):
        s = raw.strip()
        if s:
            sizes.append(parse_int(s, what="group size", path=qp, line=lineno, low=1))
    if not sizes:
        raise DataError("no group sizes (empty file)", path=qp)
    return np.asarray(sizes, dtype=np.int64)


def _check_readable(p: Path) -> None:
    check_input_file(p, expected="an SVMlight/LETOR file")
    if p.stat().st_size == 0:
        raise DataError("empty file: expected SVMlight lines 'label [qid:Q] index:value ...'", path=p)
    with open(p, "rb") as fh:
        bom_length(fh.read(HEAD), p)  # UTF-16/32, compressed refused; the parser skips a UTF-8 mark
    _refuse_lightgbm_side_files(p)


def line_of_data_row(path: PathLike, row: int) -> int | None:
    """The 1-based line number of data row ``row`` (1-based; blank and comment lines are not rows).

    ``None`` when the file has fewer data rows. Reads the file once (for error messages); lines
    end at LF, CRLF or a lone CR (:func:`bench.data.inputs.line_of_data_row`).
    """
    return data_row_line(path, row)
