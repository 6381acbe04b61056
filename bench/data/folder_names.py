"""Names in a dataset folder that are almost the expected ones (:mod:`bench.data.folders`).

* :func:`entry_ignoring_case`: ``fold1/`` for ``Fold1/``, ``s3.txt`` for ``S3.txt``, found as
  a macOS or Windows disk finds them; two names that differ only in case are refused.
* :func:`packed_files`: a folder holding compressed split files or archives instead of the
  files themselves, said with what to do; :func:`packed_twin`: one expected file that is there
  only compressed (``train.txt.gz`` for ``train.txt``, ``ratings.csv.gz`` for ``ratings.csv``),
  named where the file is said to be missing (LETOR folders, MovieLens folders) and refused
  where its absence would change what is read (a ``vali.txt.gz`` would be replaced by a
  validation set carved from train).
* :func:`other_folds`: the fold folders (``Fold2/``) beside a missing ``Fold1/``: another fold
  is never read in place of the one asked for (an archive's one top folder is, a fold is not);
  :func:`validation_lookalike`: a file named like a validation split that is none of the names
  read (``dev.txt``, ``val.txt``): refused rather than replaced by a set carved from train.
* :func:`name_key`, :func:`twins`, :func:`missing_note`: names one file system keeps apart and
  another reads as one (``Train.txt`` and ``train.txt`` on a macOS or Windows disk or a CIFS
  share; ``café`` in Unicode NFC and in NFD, as a macOS copy writes it): an output checked
  against its inputs compares names so (:mod:`bench.data.outputs`), and a missing input whose
  twin is there says so.
* :func:`windows_path`, :func:`windows_note`, :func:`refuse_windows_dirs`: a path written as on
  Windows (``sub\\q.txt``, ``C:\\data``, ``D:/ltr``) on a system where ``/`` alone separates
  folders: a missing input so written names the file meant, and a data-directory list, whose
  separator here is the drive letter's ``:``, is refused rather than split into ``D`` and
  ``\\datasets``.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from pathlib import Path

from bench.errors import ConfigError, DataError


def entry_ignoring_case(folder: Path, name: str, *, what: str) -> Path:
    """``folder / name``, or the one entry whose name differs from ``name`` only in case
    (or Unicode form: :func:`twins`)
    (``fold1/`` for ``Fold1/``, ``s3.txt`` for ``S3.txt``: found as a macOS or Windows disk
    finds it); ``folder / name`` itself when there is neither. Two distinct entries (``Fold1/``
    and ``fold1/``; two links to one entry are one) are a :class:`DataError` naming both:
    which one was meant cannot be told (``what`` says what they are)."""
    exact = folder / name
    others = twins(folder, name)  # (an unlistable folder: none)
    found = ([exact] if os.path.lexists(exact) else []) + others
    distinct = [e for i, e in enumerate(found)
                if not any(e.exists() and g.exists() and os.path.samefile(e, g)
                           for g in found[:i])]
    if len(distinct) > 1:
        raise DataError(f"{' and '.join(e.name for e in distinct)} are two {what} whose names "
                        "differ only in case: which one is meant cannot be told; remove or "
                        "rename one", path=folder)
    return distinct[0] if distinct else exact


def path_ignoring_case(root: Path, rel: str) -> Path | None:
    """``root / rel`` found as the readers find it, each part of ``rel`` without regard to case
    (``s3.txt`` for ``S3.txt``, ``fold1/train.txt`` for ``Fold1/train.txt``: :func:`entry_ignoring_case`);
    ``None`` when no such file is there or two names differ only in case (which one is meant
    cannot be told)."""
    at = root
    try:
        for part in rel.split("/"):
            at = entry_ignoring_case(at, part, what="entries")
    except (DataError, OSError):
        return None
    return at if at.is_file() else None


_PACKED = (".gz", ".bz2", ".xz", ".zst", ".lz4", ".zip", ".7z", ".rar", ".tar", ".tgz")


def packed_files(p: Path) -> str | None:
    """What a folder holding only compressed split files or archives (``train.txt.gz``,
    ``MQ2008.zip``) lacks: said, with what to do, rather than "not a dataset folder" alone; a
    folder of none holding a Dask conversion's shards is said by :func:`shard_folders`."""
    try:
        packed = sorted(f.name for f in p.iterdir() if f.is_file()
                        and f.name.lower().endswith(_PACKED) and not f.name.startswith("."))
    except OSError:
        return None
    if not packed:
        return shard_folders(p)
    shown = ", ".join(packed[:4]) + (" ..." if len(packed) > 4 else "")
    return (f"it holds compressed files or archives ({shown}) and no split files: ltrbench reads "
            "unpacked text (or Parquet); unpack them here first (e.g. gunzip, unzip, tar -xf)")


def shard_folders(p: Path) -> str | None:
    """A Dask conversion's output (``train/`` and ``test/`` of ``part-*.parquet`` shards, no
    ``train.parquet``) named as one, with what reads it; else ``None``."""
    held = [s for s in ("train", "vali", "test")
            if (p / s).is_dir() and any((p / s).glob("part-*.parquet"))]
    if "train" not in held or "test" not in held:
        return None
    return (f"it holds the Parquet shards of a Dask conversion ({', '.join(h + '/' for h in held)} "
            "of part-*.parquet), which 'ltrbench run' does not read: 'ltrbench evaluate --engine "
            "dask' and train_dask read them; for 'run', convert without --engine dask (it writes "
            "train/vali/test.parquet)")


def packed_twin(f: Path) -> str | None:
    """Where ``f`` is absent but a compressed copy is beside it (``train.txt.gz``,
    ``ratings.csv.zip``, compared without case): what to do, in words; else ``None``."""
    try:
        twins = sorted(e.name for e in f.parent.iterdir() if e.is_file()
                       and e.name.lower().startswith(f.name.lower() + ".")
                       and e.name.lower().endswith(_PACKED))
    except OSError:
        return None
    if not twins or os.path.lexists(f):
        return None
    return (f"{', '.join(twins)} beside it is compressed: ltrbench reads unpacked files; unpack "
            "it there first (e.g. gunzip, unzip)")


#: A LETOR fold folder's name (``Fold1`` .. ``Fold5``; any case).
FOLD_NAME = re.compile(r"fold\d+", re.IGNORECASE)


def other_folds(p: Path, fold: str) -> list[str]:
    """The sub-folders of ``p`` named like a fold other than ``fold`` (``Fold2/`` when
    ``Fold1`` is asked for), sorted; ``[]`` when ``p`` cannot be listed."""
    try:
        return sorted(d.name for d in p.iterdir() if d.is_dir() and FOLD_NAME.fullmatch(d.name)
                      and d.name.lower() != fold.lower())
    except OSError:
        return []


#: What a validation file's name holds between dots (``dev.txt``, ``set1.val.txt``).
_VALIDATION_WORDS = frozenset({"dev", "val", "vali", "valid", "validate", "validation",
                               "development"})


def validation_lookalike(base: Path, names: tuple[str, ...]) -> str | None:
    """Why a file of ``base`` named like a validation split (a part between dots is one of
    :data:`_VALIDATION_WORDS`: ``dev.txt``, ``val.txt``, ``set1.dev.txt``, ``valid.parquet``;
    not ``values.csv``) but none of ``names`` (the names read, any case), a ``.query`` sidecar,
    a compressed file (:func:`packed_twin` names those) or a hidden file, is refused; ``None`` when there is none. With no validation file read, a
    set carved from train would silently replace it."""
    try:
        entries = sorted(f for f in base.iterdir() if f.is_file())
    except OSError:
        return None
    read = {n.lower() for n in names}
    like = next((f for f in entries if _VALIDATION_WORDS & set(f.name.lower().split("."))
                 and f.name.lower() not in read and not f.name.lower().endswith(
                     (".query", *_PACKED))  # vali.txt.gz: named by packed_twin, with what to do
                 and not f.name.startswith(".")), None)
    return None if like is None else (
        f"{like} looks like a validation file but is not read (the names read: "
        f"{', '.join(names)}): rename it to vali.txt, or move it away to have validation "
        "carved from train")


def name_key(name: str) -> str:
    """``name`` as a case- and normalization-insensitive file system compares it (APFS, HFS+,
    NTFS, a CIFS share): Unicode NFC, case folded (``Train.txt`` = ``train.txt``; ``café`` typed
    as one code point = ``cafe`` + U+0301, as a macOS copy writes it)."""
    return unicodedata.normalize("NFC", name).casefold()


def twins(folder: Path, name: str) -> list[Path]:
    """The entries of ``folder`` whose name is ``name`` under :func:`name_key` but another
    string (``Train.txt`` for ``train.txt``); none when the folder cannot be listed."""
    key = name_key(name)
    try:
        return sorted(e for e in folder.iterdir() if e.name != name and name_key(e.name) == key)
    except OSError:
        return []


def missing_note(path: Path) -> str:
    """For a missing input ``path``: ``"; 'café.txt' is there, the name in another Unicode form
    (NFD)..."`` naming the entries of its folder that differ from its name only in case or in
    Unicode normalization (what a user typing the name sees as the same name), else ``""``.
    A ``path`` that is a symbolic link leading nowhere (a data folder moved, its links left
    behind: ``ls`` lists the name) is said to be one, naming its target, as the dataset reader
    says it (:func:`bench.datasets.resolve.resolve_spec`)."""
    if path.is_symlink():
        return (f" (a symbolic link to {os.readlink(path)!r}, which does not resolve: a "
                "missing target or a link loop)")
    found = twins(path.parent, path.name)
    if not found:
        return windows_note(path) or locale_note(path)
    def how(other: str) -> str:
        if unicodedata.normalize("NFC", other) == unicodedata.normalize("NFC", path.name):
            form = "NFD" if unicodedata.is_normalized("NFD", other) else "another"
            return (f"the same name in Unicode {form} form, as a macOS copy writes it: "
                    f"{other!a}; rename it, e.g. convmv -f utf8 -t utf8 --nfc")
        return "a name that differs only in letter case"
    shown = "; ".join(f"{os.fspath(e)!r} is there ({how(e.name)})" for e in found[:3])
    return f"; {shown}"


#: Names Windows gives to devices, with any extension (``CON``, ``nul.txt``, ``COM1``): a file or
#: folder so named cannot be made or copied there (a report, run or tune folder copied to a
#: Windows disk or share); Microsoft, "Naming Files, Paths, and Namespaces".
_WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
                              *(f"{p}{n}" for p in ("COM", "LPT") for n in "123456789")})


def windows_device(name: str) -> bool:
    """Whether Windows reads ``name`` as a device (its part before the first dot, any case)."""
    return name.split(".")[0].rstrip(" ").upper() in _WINDOWS_DEVICES


#: A Windows drive letter at the start of a path: ``C:\\``, ``D:/``, or ``E:`` alone.
_DRIVE = re.compile(r"[A-Za-z]:([\\/]|$)")


def windows_path(text: str) -> bool:
    """Whether ``text`` is written as a Windows path (a drive letter, or a backslash between
    names) on a system where ``/`` alone separates folders and ``\\`` is part of a name."""
    return os.sep == "/" and (_DRIVE.match(text) is not None or "\\" in text)


def windows_note(path: str | os.PathLike[str]) -> str:
    """For a missing input written as a Windows path: ``"; ... a Windows path ..."``, naming
    the file meant where it is there with ``/`` (``sub\\q.txt`` typed, ``sub/q.txt`` there);
    else ``""``."""
    text = os.fspath(path)
    if not windows_path(text):
        return ""
    posix = text.replace("\\", "/")
    there = (f": '{posix}' is there" if not _DRIVE.match(text) and os.path.lexists(posix)
             else "; give the path of the file on this machine")
    return (f"; '{text}' is written as a Windows path (a drive letter or '\\' between folders), "
            f"but here '/' separates folders and '\\' is part of a name{there}")


def refuse_windows_dirs(raw: str, where: str) -> None:
    """Refuse a data-directory list ``raw`` (from ``where``) written as a Windows path: split
    at ``os.pathsep`` (``:``), ``D:\\datasets`` was two folders, ``D`` (made in the current
    folder, where fetched data went) and ``\\datasets``; a ``\\`` between names is one name;
    Windows' list separator ``;`` (``/data/ltr;/srv/ltr``) made one folder of that whole name."""
    entries = [e.strip() for e in raw.split(os.pathsep)]
    if os.sep != "/" or not (_DRIVE.match(raw.strip()) or any(
            ("\\" in e or re.search(r";\s*[/~]", e)) and not os.path.lexists(e)
            for e in entries)):
        return
    raise ConfigError(f"{where} '{raw}' is written as a Windows path or list (a drive letter, "
                      "'\\' between folders, ';' between paths): here '/' separates folders, "
                      f"'{os.pathsep}' the folders of the list and '\\' is part of a name; give "
                      "the data directory's path on this machine (e.g. /mnt/d/datasets)")


def locale_note(path: str | os.PathLike[str]) -> str:
    """For a missing input whose name the file-system encoding cannot spell (``LC_ALL=C``
    without Python's UTF-8 mode: a config's ``dataset = "données"``, which is there, was called
    an unknown catalogue name, "a look-alike?"), the cause and the remedy; else ``""``."""
    text = os.fspath(path)
    encoding = sys.getfilesystemencoding()
    try:
        text.encode(encoding, sys.getfilesystemencodeerrors())
    except UnicodeEncodeError:
        locale = os.environ.get("LC_ALL") or os.environ.get("LANG") or "unset"
        return (f"; this process cannot look for {text!a}: it names files in the locale's "
                f"{encoding} (LC_ALL/LANG {locale}, without Python's UTF-8 mode): set a UTF-8 "
                "locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1, and run it again")
    return ""
