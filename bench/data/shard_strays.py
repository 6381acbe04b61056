"""Files in a shard folder that would not be read: refused, so no rows are left out in silence.

A folder of shards is read as its own files of one pattern (``part-*.parquet``, ``*.csv``); any
other entry there that holds a table -- another letter case (``part-00001.PARQUET``), another
format, a hive or nested sub-folder, or a file a writer left unfinished (``part-00002.parquet.tmp``,
``.inprogress``, a download's ``.part``) -- would give a number over part of the data, so the
reader refuses it, naming it. Hidden and ``_`` names (``_SUCCESS``, ``_metadata``, ``.x.crc``,
Spark's ``_temporary/``, Flink's ``.part-0-0.inprogress.*``) are passed over, as
``pyarrow.dataset`` passes them over (``ignore_prefixes``).
"""

from __future__ import annotations

from pathlib import Path

from bench.errors import DataError

#: Name endings of a file that holds a table (any letter case; a compression suffix after one):
#: such a file in a shard folder that is not read is data dropped without a word.
DATA_SUFFIXES = (".parquet", ".pq", ".parq", ".csv", ".tsv", ".feather", ".arrow", ".orc",
                 ".avro", ".jsonl", ".ndjson")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".snappy", ".zip")
#: Name endings a writer gives a file it has not finished (a job's temporary file, a download's
#: partial file): ``part-00002.parquet.tmp`` holds rows of the table, or half of them.
UNFINISHED = (".tmp", ".temp", ".part", ".partial", ".inprogress", ".incomplete", ".crdownload",
              ".download", ".filepart")


def unfinished(name: str) -> bool:
    """Whether ``name`` is a data file's name with a writer's unfinished ending after it."""
    low = name.lower()
    return any(low.endswith(u) and looks_like_data(low[: -len(u)]) for u in UNFINISHED)


def looks_like_data(name: str) -> bool:
    """Whether a file named ``name`` holds a table by its ending (``x.PARQUET``, ``x.csv.gz``,
    ``part-00001.pq``): :data:`DATA_SUFFIXES` in any letter case, a compression suffix allowed
    after one; hidden and ``_`` names (``_SUCCESS``, ``_metadata``, ``.x.crc``: what Spark,
    Hadoop and Dask write beside shards, and what ``pyarrow.dataset`` ignores by its
    ``ignore_prefixes``) never; a data file's name with a writer's unfinished ending after it
    (:data:`UNFINISHED`: ``part-00002.parquet.tmp``) too."""
    low = name.lower()
    if low.startswith((".", "_")):
        return False
    for u in UNFINISHED:
        if low.endswith(u) and low[: -len(u)].endswith(DATA_SUFFIXES + _COMPRESSED):
            low = low[: -len(u)]
            break
    for z in _COMPRESSED:
        if low.endswith(z):
            low = low[: -len(z)]
            break
    return low.endswith(DATA_SUFFIXES)


def stray_data(folder: Path, read: list[Path]) -> Path | None:
    """The first entry of ``folder`` that holds data but is not among the files ``read``: a file
    that :func:`looks_like_data` (``part-00001.PARQUET``, ``part-00002.csv`` beside
    ``part-*.parquet`` shards), or a sub-folder (not hidden) with such a file anywhere below it
    (hive partitions ``qid=1/``, nested shards). Reading the folder without it would silently
    give a number over part of the data, so the caller refuses it (:func:`stray_error`)."""
    taken = {f.name for f in read}
    real = folder.resolve()
    for entry in sorted(folder.iterdir()):
        if entry.name in taken or entry.name.startswith((".", "_")):
            continue
        if entry.is_dir() and entry.is_symlink() and entry.resolve() in (real, *real.parents):
            continue  # a link to the folder itself or above it (loop -> .): no rows of its own
        if entry.is_dir():
            below = (f for f in entry.rglob("*") if looks_like_data(f.name) and f.is_file())
            if next(below, None) is not None:
                return entry
        elif looks_like_data(entry.name):
            return entry
    return None


def folder_shards(folder: Path, suffixes: tuple[str, ...], *, what: str,
                  expected: str) -> list[Path]:
    """The shards of ``folder``: its files ending in one of ``suffixes`` (``"parquet"``,
    ``"csv"``, ...), all of one format, hidden and ``_`` names left out (pyarrow.dataset's
    ``ignore_prefixes``); a :class:`DataError` naming the folder when it holds two formats of
    ``what`` or none (``expected`` says what was), and naming the entry when it holds data that would not be read (:func:`stray_data`)."""
    kinds = [k for k in (sorted(f for f in folder.glob(f"*.{x}")
                                if not f.name.startswith((".", "_"))) for x in suffixes) if k]
    if len(kinds) > 1:  # reading one kind would drop the others' rows without a word
        raise DataError(f"holds {what} in two formats ({kinds[0][0].name}, {kinds[1][0].name}): "
                        "expected one table in one format", path=folder)
    if not (files := kinds[0] if kinds else []):
        stray = stray_data(folder, [])  # x.csv.gz, x.CSV: name what the folder does hold
        if stray is not None and not stray.is_dir() and stray.name.lower().endswith(_COMPRESSED):
            raise DataError(f"is a compressed shard: a folder is read as its "
                            f"{', '.join('*.' + x for x in suffixes)} files, expected {expected};"
                            " decompress the shards first (e.g. gunzip FILE)", path=stray)
        raise DataError(f"expected {expected}", path=folder)
    if (stray := stray_data(folder, files)) is not None:  # x.CSV, x.csv.gz, hive sub-folders
        raise stray_error(stray, "a folder is read as its "
                          f"{', '.join('*.' + x for x in suffixes)} files")
    return files


def stray_error(entry: Path, rule: str) -> DataError:
    """The :class:`DataError` for :func:`stray_data`'s ``entry``, saying the reading ``rule``."""
    what = ("a folder holding data files (hive partitions or nested shards are not read)"
            if entry.is_dir() else "a data file that would not be read")
    if not entry.is_dir() and unfinished(entry.name):
        what = ("a data file a writer has not finished (its name ends in "
                f"{entry.suffix!r}: a crashed or running job's temporary file), not read")
    return DataError(f"is {what}: {rule}, so its rows would be left out of the result without "
                     "a word; move it out of the folder, or write it as one of the read files",
                     path=entry)


__all__ = ["DATA_SUFFIXES", "UNFINISHED", "folder_shards", "looks_like_data", "stray_data",
           "stray_error", "unfinished"]
