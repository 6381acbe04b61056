"""LETOR's five folds: which query parts train, validate and test each fold, and reading one.

The LETOR 3.0 / 4.0 and MSLR-WEB releases cut the queries of a dataset into five parts
``S1`` … ``S5`` and publish five folds by rotation (the MSLR-WEB download page's fold table;
T. Qin and T.-Y. Liu, "Introducing LETOR 4.0 Datasets", arXiv:1306.2597, 2013, section 3):
fold *k* trains on ``S(k)``, ``S(k+1)``, ``S(k+2)``, validates on ``S(k+3)`` and tests on
``S(k+4)``, the indices taken cyclically in 1 … 5. Every query is therefore in the test split
of exactly one fold, which is why a published LETOR result is the mean over the five folds and
why the per-query values of the five test splits together describe every query once.

A fold is read from ``Fold<k>/`` when the folder has it (as shipped by MSLR-WEB and MQ2007/8),
else composed from ``S1.txt`` … ``S5.txt`` beside it by the rotation above (as LETOR 3.0's
OHSUMED and the MQ2007/8 ``S*.txt`` files are shipped). Each part file is parsed once and kept
in the LETOR cache keyed by its SHA-256 (:mod:`bench.data.letor_cache`), so the five folds of a
root cost five parses, not fifteen.

>>> rotation(1)
FoldPlan(fold=1, train=(1, 2, 3), vali=4, test=5)
>>> rotation(4)
FoldPlan(fold=4, train=(4, 5, 1), vali=2, test=3)
>>> parse_folds("all"), parse_folds("1,3,5")
((1, 2, 3, 4, 5), (1, 3, 5))
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data.folder_names import entry_ignoring_case
from bench.data.folders import find_split_files, read_letor_folder
from bench.data.groups import offsets_from_qid
from bench.data.hashing import sha256_file
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import read_svmlight_files_with_digests
from bench.data.svmlight_parse import Progress
from bench.errors import ConfigError, DataError, refuse_foreign_space

PathLike = str | os.PathLike[str]

N_FOLDS = 5
"""How many folds (and query parts) a LETOR dataset has."""


@dataclass(frozen=True)
class FoldPlan:
    """Which parts ``S<i>`` make the train, validation and test splits of fold ``fold``."""

    fold: int
    train: tuple[int, int, int]
    vali: int
    test: int


def rotation(fold: int) -> FoldPlan:
    """The published LETOR rotation for ``fold`` (1 … 5): train ``S(k..k+2)``, vali ``S(k+3)``,
    test ``S(k+4)``, cyclic (see the module docstring for the source)."""
    if not 1 <= fold <= N_FOLDS:
        raise ConfigError(f"fold {fold} is not one of 1..{N_FOLDS}")

    def part(i: int) -> int:
        return (fold - 1 + i) % N_FOLDS + 1

    return FoldPlan(fold=fold, train=(part(0), part(1), part(2)), vali=part(3), test=part(4))


def parse_folds(text: str, *, option: str = "--folds") -> tuple[int, ...]:
    """``"all"`` → ``(1, 2, 3, 4, 5)``; ``"1,3,5"`` → ``(1, 3, 5)`` (the order given kept).

    Refused, naming ``option``: an empty list, a fold outside 1 … 5, a repeated fold, anything
    that is not a whole number (``1.0``, ``Fold1``, ``-1``).
    """
    refuse_foreign_space(text, option, f"'all' or fold numbers 1..{N_FOLDS} (e.g. 1,3,5)")
    t = text.strip()
    if t.lower() == "all":
        return tuple(range(1, N_FOLDS + 1))
    items = [s.strip() for s in t.split(",")]
    if not t or any(not s for s in items):
        raise ConfigError(f"{option}: expected 'all' or fold numbers 1..{N_FOLDS} separated by "
                          f"commas (e.g. 1,3,5); got {text!r}")
    folds: list[int] = []
    for s in items:
        if not (s.isascii() and s.isdigit()) or not 1 <= int(s) <= N_FOLDS:
            raise ConfigError(f"{option}: fold {s!r} is not one of 1..{N_FOLDS} "
                              f"(or 'all'); got {text!r}")
        if int(s) in folds:
            raise ConfigError(f"{option}: fold {int(s)} is named twice in {text!r}")
        folds.append(int(s))
    return tuple(folds)


def fold_name(name: str, fold: int) -> str:
    """The name of fold ``fold`` of the dataset ``name``: ``NAME:Fold3`` (its runs, their tables)."""
    return f"{name}:Fold{fold}"


def fold_suffix(text: str) -> tuple[str, str | None]:
    """``"NAME:Fold3"`` → ``("NAME", "Fold3")`` (any case of ``fold``, any number); text without
    a fold after its last colon → ``(text, None)``. The one reader of :func:`fold_name`'s form.
    The number is ASCII digits (``Fold٣`` is no fold).

    >>> fold_suffix("ohsumed:Fold3"), fold_suffix("data/MQ2008"), fold_suffix("a:b")
    (('ohsumed', 'Fold3'), ('data/MQ2008', None), ('a:b', None))
    """
    head, sep, tail = text.rpartition(":")
    if sep and head and tail.lower().startswith("fold") and tail[4:].isascii() \
            and tail[4:].isdigit():
        return head, tail
    return text, None


def fold_number(spec: str, fold: str, *, name: str) -> int:
    """K of the ``FoldK`` that :func:`fold_suffix` found after ``spec``'s last colon, for a
    generated dataset ``name``: 1..:data:`N_FOLDS` written without leading zeros, else a
    :class:`ConfigError` naming the spec and the folds it has. The one check of the card lookup
    and the resolver."""
    k = int(fold[4:])
    if not 1 <= k <= N_FOLDS or fold[4:] != str(k):
        head = fold_suffix(spec)[0]
        raise ConfigError(f"dataset {spec!r}: {fold!r} is not a fold of {name!r}; expected "
                          f"{head}:Fold1 .. {head}:Fold{N_FOLDS}")
    return k


def part_files(root: PathLike) -> dict[int, Path] | None:
    """``{1: root/S1.txt, …, 5: root/S5.txt}`` when all five part files are there, else
    ``None``; a root with some of them but not all is refused naming the missing ones."""
    p = Path(root)
    found = {i: entry_ignoring_case(p, f"S{i}.txt", what="part files")  # s3.txt too
             for i in range(1, N_FOLDS + 1)}
    present = [i for i, f in found.items() if f.is_file()]
    if not present:
        return None
    if len(present) < N_FOLDS:
        missing = ", ".join(f"S{i}.txt{_what_is(f)}" for i, f in found.items()
                            if i not in present)
        raise DataError(f"a LETOR root needs all five part files S1.txt..S5.txt to build its "
                        f"folds; not a file: {missing}", path=p)
    return found


def _what_is(path: Path) -> str:
    """What stands at ``path`` instead of a part file: `` (missing)``, `` (a folder)``, ..."""
    if path.is_symlink() and not path.exists():
        return f" (a symbolic link to {os.readlink(path)!r}, which does not resolve)"
    if not path.exists():
        return " (missing)"
    return " (a folder)" if path.is_dir() else " (not a regular file)"


def fold_source(root: PathLike, fold: int) -> str:
    """How fold ``fold`` of ``root`` is read: ``"folder"`` (``Fold<k>/`` has train and test) or
    ``"parts"`` (composed from ``S1..S5``, when there is no ``Fold<k>``); a root with neither is
    refused naming what it lacks, and so is a ``Fold<k>`` that is incomplete, a file or a link
    to nothing (the parts would build a fold other than the one the folder holds)."""
    p = Path(root)
    sub = entry_ignoring_case(p, f"Fold{fold}", what="fold folders")  # fold1/ too, not both
    if sub.is_dir():  # a shipped fold is read as shipped, never replaced by the parts in silence
        try:
            find_split_files(p, fold=sub.name)
        except DataError as exc:
            hint = (f"; remove it to build fold {fold} from S1.txt..S5.txt"
                    if part_files(p) is not None else "")
            raise DataError(f"Fold{fold}/ is not a usable fold ({exc}){hint}",
                            path=sub) from None
        return "folder"
    if sub.exists() or sub.is_symlink():  # a file, or a link to nothing
        raise DataError(f"Fold{fold} is not a folder (a file, or a link to nothing): make it the "
                        f"fold's folder, or remove it to build fold {fold} from S1.txt..S5.txt",
                        path=sub)
    if part_files(p) is not None:
        return "parts"
    raise DataError(f"no Fold{fold}/ folder and no S1.txt..S5.txt part files to build fold "
                    f"{fold} from", path=p)


def check_distinct_test_folds(root: PathLike, folds: Sequence[int]) -> None:
    """Refuse folds of ``root`` whose test splits share a query: LETOR's five test folds partition
    the queries (each query is tested in exactly one fold), so a fold table would pool a shared
    query twice without a word.

    Two steps. Test files that are one file or equal bytes (a copy of another fold's test file,
    a link to it) are named first: sizes are compared and only files of equal size are hashed
    (SHA-256). Then the query ids of every test file (``Fold<k>/test.txt``, or the part file
    ``S<i>.txt`` a fold built from ``S1..S5`` tests on) are read (labels and ids only, no
    feature matrix, one file at a time) and compared in one vectorised pass per fold: the first
    id, in file order, of a later fold's test file that an earlier fold's test file also holds is
    refused naming both files, the id and its line. Files whose groups come from a ``.query``
    side file have no ids of their own (their groups are numbered from 0 in each file) and are
    not compared. Within one fold, a test query that is also a train or validation query is
    :mod:`bench.data.split_checks`' ``leak_queries`` warning (``--strict`` refuses it)."""
    files = _test_files(root, folds)
    by_size: dict[int, list[int]] = {}
    for k, f in files.items():
        by_size.setdefault(f.stat().st_size, []).append(k)
    for same in (ks for ks in by_size.values() if len(ks) > 1):
        seen: dict[str, int] = {}
        for k in same:
            digest = sha256_file(files[k])
            if digest in seen:
                first = seen[digest]
                raise DataError(f"the test file of Fold{k} ({files[k]}) holds the same bytes as "
                                f"Fold{first}'s ({files[first]}): LETOR's test folds are disjoint "
                                "sets of queries, and a fold table would count these queries "
                                "twice; put each fold's own test file in place",
                                path=Path(root))
            seen[digest] = k
    _refuse_queries_in_two_test_folds(root, files)


def check_same_validation(root: PathLike, folds: Sequence[int]) -> None:
    """Refuse folds of ``root`` of which some have a validation file and some not: a fold
    without one validates on queries carved from its train file, the others on their own file,
    and a fold table over both mixes two protocols (a ``Fold3/vali.txt`` lost in a download is
    the usual cause). A fold built from ``S1..S5`` always has one (its ``S(k+3)``)."""
    has = {k: fold_source(root, k) == "parts"
           or find_split_files(Path(root), fold=f"Fold{k}")["vali"] is not None for k in folds}
    without = [k for k, v in has.items() if not v]
    if without and len(without) < len(has):
        with_vali = [k for k, v in has.items() if v]
        raise DataError(
            f"{', '.join(f'Fold{k}' for k in without)} "
            f"{'has' if len(without) == 1 else 'have'} no vali.txt while "
            f"{', '.join(f'Fold{k}' for k in with_vali)} "
            f"{'has' if len(with_vali) == 1 else 'have'} one: a fold without one would validate "
            "on queries carved from its train file, and the fold table would mix two "
            "protocols; put the missing vali.txt in place (or pick the folds with --folds)",
            path=Path(root))


def check_folders_match_parts(root: PathLike, folds: Sequence[int]) -> None:
    """Refuse a shipped ``Fold<k>/`` beside ``S1..S5`` (as MQ2007/8 and OHSUMED ship both)
    whose test queries are not those of the part the published rotation tests fold ``k`` on
    (:func:`rotation`): the folder is read as shipped, and a folder of another cut of the
    queries was another protocol's fold, tabulated without a word. Files whose groups come
    from a ``.query`` side file have no ids of their own and are not compared."""
    parts = part_files(root)
    if parts is None:
        return
    from bench.data.svmlight import read_svmlight

    for k in folds:
        if fold_source(root, k) != "folder":
            continue
        test = find_split_files(Path(root), fold=entry_ignoring_case(
            Path(root), f"Fold{k}", what="fold folders").name)["test"]
        part = parts[rotation(k).test]
        if test is None:
            continue
        shipped, built = (read_svmlight(f, features=False) for f in (test, part))
        if shipped.meta.get("qids") != "file" or built.meta.get("qids") != "file":
            continue
        extra = np.setdiff1d(shipped.qid, built.qid)
        lacking = np.setdiff1d(built.qid, shipped.qid)
        if extra.size or lacking.size:
            detail = (f"query {int(extra[0])} is in it but not in {part.name}" if extra.size
                      else f"query {int(lacking[0])} of {part.name} is not in it")
            raise DataError(f"Fold{k}'s test file does not hold the queries of {part.name}, the "
                            f"part the published rotation tests fold {k} on ({detail}): the "
                            f"folder and the part files are two cuts of the queries; remove "
                            f"Fold{k}/ to build the fold from S1.txt..S5.txt, or move the part "
                            "files out to read the folders", path=test)


def _test_files(root: PathLike, folds: Sequence[int]) -> dict[int, Path]:
    """Fold -> the file its test split is read from (its folder's, or its part file)."""
    files: dict[int, Path] = {}
    for k in folds:
        if fold_source(root, k) == "folder":
            test = find_split_files(Path(root), fold=f"Fold{k}")["test"]
            if test is not None:
                files[k] = test
        else:
            parts = part_files(root)
            assert parts is not None  # fold_source said "parts"
            files[k] = parts[rotation(k).test]
    return files


def _refuse_queries_in_two_test_folds(root: PathLike, files: dict[int, Path]) -> None:
    """The id check of :func:`check_distinct_test_folds` (one pass per fold, none per query)."""
    from bench.data.svmlight import line_of_data_row, read_svmlight

    earlier: list[tuple[int, NDArray[np.int64]]] = []  # (fold, its sorted unique ids)
    for k, f in files.items():
        d = read_svmlight(f, sort_by_qid=True, features=False)
        if d.meta.get("qids") != "file" or not d.n_rows:
            continue
        order = d.meta.get("file_order")
        qid = d.qid if order is None else d.qid[np.argsort(np.asarray(order), kind="stable")]
        hit = np.isin(qid, np.concatenate([ids for _, ids in earlier])) if earlier else None
        if hit is not None and hit.any():
            row = int(np.argmax(hit))  # the first shared row in the file's line order
            j = next(j for j, ids in earlier if np.isin(qid[row], ids))
            raise DataError(
                f"query {int(qid[row])} of Fold{k}'s test file ({f}, line "
                f"{line_of_data_row(f, row + 1)}) is also in Fold{j}'s ({files[j]}): LETOR's "
                "test folds are disjoint sets of queries, and a fold table would count this "
                "query twice; put each fold's own test file in place", path=Path(root))
        earlier.append((k, np.unique(qid)))


def read_fold(root: PathLike, fold: int, *, name: str | None = None,
              cache_dir: PathLike | None = None, progress: Progress | None = None) -> LetorSplits:
    """Fold ``fold`` of the LETOR root ``root`` as :class:`~bench.data.letor.LetorSplits`.

    From ``Fold<k>/`` when present (:func:`bench.data.folders.read_letor_folder`), else built
    from the part files by :func:`rotation`: the train split is ``S(k)``, ``S(k+1)``, ``S(k+2)``
    concatenated in that order. A query id found in two parts is refused (the parts of a LETOR
    dataset are disjoint sets of queries; a clash means the files are not one dataset's parts).
    ``meta["fold"]`` is ``"Fold<k>"`` either way; ``meta["parts"]`` records the plan when built.
    """
    p = Path(root)
    display = name or p.resolve().name
    if fold_source(p, fold) == "folder":
        splits = read_letor_folder(p, fold=f"Fold{fold}", name=display, cache_dir=cache_dir,
                                   progress=progress)
        return LetorSplits(name=splits.name, train=splits.train, vali=splits.vali,
                           test=splits.test, inputs=splits.inputs,
                           meta={**splits.meta, "fold": f"Fold{fold}", "fold_source": "folder"})
    files = part_files(p)
    assert files is not None  # fold_source said "parts"
    plan = rotation(fold)
    loaded, digests = read_svmlight_files_with_digests(
        [files[i] for i in range(1, N_FOLDS + 1)], cache_dir=cache_dir, progress=progress)
    parts = dict(zip(range(1, N_FOLDS + 1), loaded, strict=True))
    _refuse_shared_queries(parts, files)
    train = _concat([parts[i] for i in plan.train], source=f"{p}/S{plan.train}")
    meta: dict[str, object] = {
        "layout": "letor", "fold": f"Fold{fold}", "fold_source": "parts",
        "parts": {"train": [f"S{i}" for i in plan.train], "vali": f"S{plan.vali}",
                  "test": f"S{plan.test}"},
        "files": {"train": [str(files[i]) for i in plan.train], "vali": str(files[plan.vali]),
                  "test": str(files[plan.test])},
        "n_features": train.n_features,
        "validation": {"rule": "file", "file": str(files[plan.vali])},
    }
    used = (*plan.train, plan.vali, plan.test)
    inputs = {str(files[i]): digests[i - 1] for i in used}
    return LetorSplits(name=display, train=train, vali=parts[plan.vali], test=parts[plan.test],
                       inputs=inputs, meta=meta)


def part_bounds(n_queries: int) -> tuple[int, ...]:
    """Query index where each of the five parts of ``n_queries`` pooled queries starts, and the
    end: ``round(i * n / 5)`` for ``i`` = 0 … 5 (parts of equal size, give or take one query).

    >>> part_bounds(315)  # synthetic-mslr30k:0.01: train 189 = S1..S3, vali 63 = S4, test 63 = S5
    (0, 63, 126, 189, 252, 315)
    """
    if n_queries < N_FOLDS:
        raise ConfigError(f"{n_queries} queries cannot be cut into {N_FOLDS} parts")
    return tuple(round(i * n_queries / N_FOLDS) for i in range(N_FOLDS + 1))


def write_parts(files: list[Path], dest: PathLike, n_queries: int) -> dict[int, Path]:
    """Cut the LETOR text ``files`` (one query's lines together, query ids unique across the
    files) into ``S1.txt`` … ``S5.txt`` in ``dest``: their queries pooled in file order and cut
    at :func:`part_bounds` of ``n_queries`` (how many queries the files hold: checked). Lines are
    copied as they are (the values read back are the files' own). Returns part -> file."""
    bounds = part_bounds(n_queries)
    out = {i: Path(dest) / f"S{i}.txt" for i in range(1, N_FOLDS + 1)}
    handles = [open(out[i], "wb") for i in out]  # noqa: SIM115 - closed below
    seen, last, part = 0, b"", 0
    try:
        for f in files:
            with open(f, "rb") as lines:
                for line in lines:
                    qid = line.split(maxsplit=2)[1] if line.strip() else last
                    if qid != last:
                        seen, last = seen + 1, qid
                        while part < N_FOLDS - 1 and seen > bounds[part + 1]:
                            part += 1
                    handles[part].write(line)
    finally:
        for h in handles:
            h.close()
    if seen != n_queries:
        raise DataError(f"expected {n_queries} queries in {', '.join(map(str, files))}, read "
                        f"{seen}", path=Path(dest))
    return out


def _refuse_shared_queries(parts: dict[int, LetorData], files: dict[int, Path]) -> None:
    """A query id in two part files is refused, naming both files and the id."""
    qids = [np.unique(parts[i].qid) for i in sorted(parts)]
    every = np.concatenate(qids)
    values, counts = np.unique(every, return_counts=True)
    if (counts > 1).any():
        q = int(values[np.argmax(counts > 1)])
        owners = [f"S{i}.txt" for i, u in zip(sorted(parts), qids, strict=True)
                  if np.isin(q, u)]
        raise DataError(f"query {q} is in {' and '.join(owners)}: the five parts of a LETOR "
                        "dataset hold disjoint queries", path=files[1].parent)


def _concat(parts: list[LetorData], *, source: str) -> LetorData:
    """Row-wise concatenation of parts with disjoint queries (offsets rebuilt)."""
    qid = np.concatenate([d.qid for d in parts])
    return LetorData(X=np.concatenate([d.X for d in parts]),
                     y=np.concatenate([d.y for d in parts]), qid=qid,
                     offsets=offsets_from_qid(qid)[0], feature_names=parts[0].feature_names,
                     source=source)


__all__ = ["N_FOLDS", "FoldPlan", "check_folders_match_parts", "check_same_validation",
           "fold_name", "fold_source",
           "fold_suffix", "parse_folds", "part_bounds", "part_files", "read_fold", "rotation",
           "write_parts"]
