"""A dataset folder holding two split sets: text (SVMlight) and Parquet, one conversion's or refused.

``ltrbench convert`` writes every split twice, ``train.txt`` (+ ``.query``) and ``train.parquet``,
and records in ``summary.json`` the files it wrote (``files``), their SHA-256 (``sha256``,
:func:`digests_of`) and their size and modification time (``stat``, :func:`stats_of`). Such a folder is read through its Parquet files (the documented
precedence: the same rows, read faster). Any other folder holding both a text and a Parquet
set is ambiguous, and :func:`check_one_set` refuses it naming both files:

- no ``summary.json`` (or one that does not list both sets as written by one conversion): the
  two sets may be two datasets (a user's own ``train.txt`` copied beside an old conversion);
- a file whose digest differs from the one recorded (a ``train.txt`` edited or replaced after
  the conversion, a ``train.parquet`` rewritten): the sets no longer agree, and reading one
  would silently drop the other's rows.

A conversion written before digests were recorded (its ``summary.json`` lists both sets, no
``sha256``) is read as before, through its Parquet files.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from bench.data.hashing import sha256_file
from bench.errors import DataError

SPLITS = ("train", "vali", "test")
#: The record a conversion writes beside its files.
SUMMARY = "summary.json"


def digests_of(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """``{name: sha256}`` of the files ``names`` in ``folder`` (for ``summary.json``)."""
    from bench.data.letor_cache import sha256_files  # in parallel, one file a thread

    names = list(names)
    return dict(zip(names, sha256_files([folder / n for n in names]), strict=True))


def stats_of(folder: Path, names: Iterable[str]) -> dict[str, list[int]]:
    """``{name: [size, mtime_ns]}`` of the files ``names`` in ``folder`` (for ``summary.json``):
    a file that still has both is not hashed again by :func:`check_one_set` (a text split
    of several GB would cost seconds a run); a copy made without keeping times is hashed."""
    return {n: [(st := (folder / n).stat()).st_size, st.st_mtime_ns] for n in names}


def check_one_set(folder: Path, parquet_digests: Mapping[str, str],
                  text_files: Callable[[], Mapping[str, Path | None]]) -> None:
    """Refuse a folder whose Parquet splits sit beside a text split set (``text_files()``:
    the LETOR files found there, by split; a :class:`DataError` when there are none) unless
    ``summary.json`` says one conversion wrote both and no file changed since
    (``parquet_digests``: the SHA-256 of ``train/vali/test.parquet``, by split, as the reader
    computed them)."""
    try:
        texts = {s: f for s, f in text_files().items() if f is not None}
    except DataError:  # no text set there (or none that could be read as one)
        return
    if not texts:
        return
    split = "train" if "train" in texts else next(iter(texts))
    names = {s: f.relative_to(folder).as_posix() for s, f in texts.items()}
    text, parquet = names[split], f"{split}.parquet"
    try:
        record = _record(folder)
    except DataError as exc:  # cut, a FIFO, NaN: no record vouches, and why is said
        raise DataError(f"the folder holds two split sets, text ({text}) and Parquet "
                        f"({parquet}), and its conversion record cannot vouch for them ({exc}); "
                        "convert again, or move one set to a folder of its own",
                        path=folder) from None
    files = record.get("files") if record is not None else None
    listed = {f for f in files if isinstance(f, str)} if isinstance(files, list) else set()
    wanted = set(names.values()) | {f"{s}.parquet" for s in SPLITS}
    if record is None or not wanted <= listed:
        raise DataError(
            f"the folder holds two split sets, text ({text}) and Parquet "
            f"({parquet}), and no conversion record ({SUMMARY} 'files', as 'ltrbench "
            "convert' writes it) says they are one dataset: which one to read cannot be told; "
            "move one set to a folder of its own", path=folder)
    if "sha256" not in record:
        return  # a conversion written before digests were recorded: its Parquet set is read
    every = [n for t in names.values() for n in (t, f"{t}.query")] + \
        [f"{s}.parquet" for s in parquet_digests]
    if (why := _unvouched(record, folder, every)) is not None:
        raise DataError(f"{SUMMARY}: {why}: whether the text ({text}) and Parquet ({parquet}) "
                        "splits still agree cannot be told; convert again, or move one set to "
                        "a folder of its own", path=folder)
    recorded = record["sha256"]
    assert isinstance(recorded, dict)
    changed = [f"{s}.parquet" for s, d in parquet_digests.items()
               if recorded.get(f"{s}.parquet", d) != d]
    stat_record = record.get("stat")  # a file of the recorded size and time: not hashed again
    stats = stat_record if isinstance(stat_record, dict) else {}
    for text_name in names.values():
        for name in (text_name, f"{text_name}.query"):
            want, f = recorded.get(name), folder / name
            if want is None or not f.is_file() or stats.get(name) == list(_stat(f)):
                continue
            if sha256_file(f) != want:
                changed.append(name)
    if changed:
        raise DataError(
            f"{', '.join(changed)} changed since the conversion that wrote the folder (the "
            f"SHA-256 differs from {SUMMARY}'s): its text ({text}) and Parquet "
            f"({parquet}) splits may no longer agree, and reading one would drop the "
            "other's rows silently; convert again, or move the set you mean to a folder of "
            "its own", path=folder)


def check_lightgbm_alone(folder: Path,
                         text_files: Callable[[], Mapping[str, Path | None]]) -> None:
    """Refuse LightGBM's example layout (``rank.train`` + ``rank.test``) beside another split
    set (``{train,test}.parquet``, or the LETOR text files ``text_files()`` finds): the
    example's files were read and the other set ignored without a word. A :class:`DataError`
    naming a file of each."""
    others = [f"{s}.parquet" for s in SPLITS if (folder / f"{s}.parquet").is_file()]
    with contextlib.suppress(DataError):  # (no LETOR text set there)
        others += [f.relative_to(folder).as_posix() for f in text_files().values() if f]
    if others:
        raise DataError(
            f"the folder holds two split sets, LightGBM's example (rank.train, rank.test) and "
            f"{', '.join(others[:3])}: which one to read cannot be told; move one set to a "
            "folder of its own", path=folder)


def _stat(f: Path) -> tuple[int, int]:
    st = f.stat()
    return st.st_size, st.st_mtime_ns


def _record(folder: Path) -> dict[str, object] | None:
    """``summary.json`` as a mapping, or ``None`` when absent or not a conversion's record.
    Read as every JSON file is (:func:`bench.data.jsonio.read_json_object`: a UTF-8 byte-order
    mark skipped, a file cut or holding a key twice named): a record saved again by a Windows
    editor was "no conversion record"."""
    from bench.data.jsonio import read_json_object

    path = folder / SUMMARY
    if not path.exists() and not path.is_symlink():
        return None  # (a FIFO, a folder or a broken link there: named by the reader)
    data = read_json_object(path, "the record 'ltrbench convert' writes")
    return data if isinstance(data.get("files"), list) else None


def _unvouched(record: dict[str, object], folder: Path, names: Iterable[str]) -> str | None:
    """What a record's ``sha256`` cannot vouch for: not an object (``sha256-as-a-list``), or
    without the digest of a listed file that is there; ``None`` when it vouches."""
    recorded = record["sha256"]
    if not isinstance(recorded, dict):
        return f"'sha256' holds {json.dumps(recorded)[:40]}, not an object of file -> digest"
    listed = record.get("files")
    for name in names:
        if name not in recorded and isinstance(listed, list) and name in listed \
                and (folder / name).is_file():
            return f"'sha256' records no digest of {name}, which it lists in 'files'"
    return None


def refuse_parquet_twins(texts: Mapping[str, Path | None], folder: Path) -> None:
    """Refuse a text split file with a Parquet file of its name beside it (``train.txt`` and
    ``train.parquet``) where the folder holds no Parquet split set (a set is read as one, see
    :func:`check_one_set`): one split in two formats, and reading one would silently leave the
    other's rows out."""
    for split, f in texts.items():
        if f is None or not f.name.lower().endswith(".txt"):
            continue
        twin = f.with_name(f.name[:-4] + ".parquet")
        if twin.exists() and not _parquet_set_in(f.parent):
            raise DataError(
                f"the {split} split is there twice, as text ({f.relative_to(folder)}) and as "
                f"Parquet ({twin.relative_to(folder)}), and the folder holds no Parquet split "
                "set (train.parquet and test.parquet) that 'ltrbench convert' wrote: which one "
                "to read cannot be told; move one of them to a folder of its own", path=folder)


def _parquet_set_in(folder: Path) -> bool:
    """Whether ``folder`` holds a Parquet split set (``train.parquet`` and ``test.parquet``), which
    is read as one (:func:`check_one_set`), its text twins beside it as 'ltrbench convert' wrote
    them."""
    return all((folder / f"{s}.parquet").is_file() for s in ("train", "test"))
