"""Folders of LETOR files: train / validation / test in one call.

Layouts recognised (:func:`detect_layout`):

- ``letor``: ``Fold1/{train,vali,test}.txt`` (LETOR 3.0/4.0, MSLR-WEB, MQ2007/8) or the same
  three files directly in the folder (Istella ``full/``, ``sample/``); ``valid.txt`` /
  ``validation.txt`` and Yahoo's ``set1.train.txt`` / ``set1.valid.txt`` / ``set1.test.txt`` are
  accepted too. All three files are read with one shared feature count
  (:func:`~bench.data.svmlight.read_svmlight_files`).
- ``lightgbm``: LightGBM's ``examples/lambdarank``: ``rank.train`` + ``rank.train.query`` and
  ``rank.test`` + ``rank.test.query``, sparse SVMlight without ``qid:``; alone in its folder.
- ``parquet``: ``{train,vali,test}.parquet`` as ``ltrbench convert`` writes them; beside the
  text set it wrote only (:mod:`bench.data.split_sets`).

When a folder has no validation file (LightGBM's example, Istella ``full``), a validation set is
carved out of the training file **by query** (:func:`carve_validation`): a fixed fraction of the
training queries, chosen by ``numpy.random.default_rng(seed).permutation``; the rule, fraction,
seed and the chosen query ids are recorded in ``LetorSplits.meta["validation"]``. The test file
is never touched, so no model choice can see it.

A folder that is almost one of these layouts is refused naming the file it lacks or cannot read
(:func:`near_miss`: ``ds/Fold1/test.txt is missing``, ``ds/test.txt is a broken symbolic link``);
a ``vali.txt`` that is there but is no readable file is refused, not silently replaced by a
carved validation set.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.data.atomic import check_switch_finished
from bench.data.folder_names import (
    FOLD_NAME,
    entry_ignoring_case,
    other_folds,
    packed_files,
    packed_twin,
    validation_lookalike,
)
from bench.data.letor import LetorData, LetorSplits
from bench.data.parquet import read_parquet
from bench.data.split_sets import refuse_parquet_twins
from bench.data.svmlight import query_sidecar, read_svmlight_files_with_digests
from bench.data.svmlight_parse import Progress
from bench.errors import DataError

PathLike = str | os.PathLike[str]
SPLITS = ("train", "vali", "test")
DEFAULT_VALI_FRACTION = 0.2
DEFAULT_SEED = 0

_NAMES = {
    "train": ("train.txt", "train"),
    "vali": ("vali.txt", "valid.txt", "validation.txt", "vali", "valid"),
    "test": ("test.txt", "test"),
}
_SUFFIXES = {"train": (".train.txt",), "vali": (".valid.txt", ".vali.txt"), "test": (".test.txt",)}


def detect_layout(path: PathLike, *, fold: str = "Fold1") -> str | None:
    """``"lightgbm"``, ``"parquet"``, ``"letor"`` or ``None`` for a folder (see the module doc)."""
    p = Path(path)
    if not p.is_dir():
        return None
    if (p / "rank.train").is_file() and (p / "rank.test").is_file():
        return "lightgbm"
    if (p / "train.parquet").is_file() and (p / "test.parquet").is_file():
        return "parquet"
    try:
        find_split_files(p, fold=fold)
    except DataError:
        return None
    return "letor"


def find_split_files(
    path: PathLike, *, fold: str = "Fold1", splits: dict[str, str] | None = None
) -> dict[str, Path | None]:
    """The train / vali / test files of a LETOR folder (``vali`` is ``None`` when absent).

    ``splits`` names the files explicitly (relative to ``path``, ``{fold}`` is replaced).
    Otherwise ``path/<fold>/`` is used when it exists, else ``path`` itself, else the one
    sub-folder of ``path`` (an archive's top folder) that holds ``<fold>`` or the files.
    """
    p = Path(path)
    if not p.is_dir():
        raise DataError("no such folder", path=p)
    if splits:
        found: dict[str, Path | None] = {}
        for split in SPLITS:
            rel = splits.get(split)
            f = p / rel.format(fold=fold) if rel else None
            if f is not None and not f.is_file():
                raise DataError(f"{split} file {f.name} is missing", path=f.parent)
            found[split] = f
        if found["train"] is None or found["test"] is None:
            raise DataError("a split table needs at least train and test files", path=p)
        return found
    for base in _candidate_bases(p, fold):
        found = {s: _find_one(base, s) for s in SPLITS}
        if found["train"] is not None and found["test"] is not None:
            if base == entry_ignoring_case(p, fold, what="fold folders") \
                    and (two := _two_datasets(p, fold)) is not None:
                raise DataError(two, path=p)
            if found["vali"] is None and (bad := _bad_entry(base, "vali")) is not None:
                raise DataError(f"{bad[0]} {bad[1]}: the validation file must be a readable "
                                "file (or absent: then it is carved from train)", path=p)
            if found["vali"] is None and (twin := _packed_split(base, "vali")) is not None:
                raise DataError(f"{base / _NAMES['vali'][0]} is missing and {twin} (a validation "
                                "set carved from train would replace it)", path=p)
            if found["vali"] is None and (like := validation_lookalike(base, _NAMES["vali"])) is not None:
                raise DataError(like, path=p)
            return found
    why = near_miss(p, fold=fold)
    raise DataError(
        f"no LETOR split files: expected {fold}/{{train,vali,test}}.txt or "
        "{train,vali,test}.txt (vali optional)" + (f"; {why}" if why else ""),
        path=p,
    )


def _distinct_splits(found: dict[str, Path | None], p: Path) -> dict[str, Path | None]:
    """``found`` when no two splits are one file (a symbolic or hard link, the same name in a
    split table: the test score would be the training data's) and none has a Parquet twin."""
    refuse_parquet_twins(found, p)
    named = [(s, f) for s, f in found.items() if f is not None]
    for i, (split, f) in enumerate(named):
        for other, g in named[:i]:
            if os.path.samefile(f, g):
                raise DataError(f"the {split} file {f.name} and the {other} file {g.name} are "
                                f"one file (a link, or one name twice): the {split} score would "
                                f"measure the {other} data; expected a file of its own per split",
                                path=p)
    return found


def near_miss(path: PathLike, *, fold: str = "Fold1",
              ratings_files: tuple[str, ...] = ()) -> str | None:
    """What keeps folder ``path`` from being a dataset, when it almost is one; else ``None``.

    Each layout of the module docstring is tried where it would be found (``<fold>/``, the
    folder, its one sub-folder; ``ratings_files``: the names of a ratings file, e.g. MovieLens's,
    in the folder or its one sub-folder); the one with the most of its files present (a file, or
    an entry of that name that is not one) is the near miss, and every file it lacks is named
    with its path: ``ds/Fold1/test.txt is missing``, ``ds/test.txt is a broken symbolic link to
    'nosuch.txt'``, ``ds/rank.test is a directory, not a file``. A folder holding none of them is
    no near miss (``None``).
    """
    p = Path(path)
    if not p.is_dir():
        return None
    try:
        two = _two_datasets(p, fold)
    except DataError as exc:  # several train files: the layouts below name them
        two = None if exc.reason.startswith("several") else exc.reason
    if two is not None:
        return two
    if (others := other_folds(p, fold)) and not entry_ignoring_case(p, fold, what="fold "
                                                                    "folders").is_dir():
        return (f"it holds {', '.join(o + '/' for o in others)} but no {fold}/: another fold is "
                f"not read in its place; name the fold, e.g. {p}:{others[0]}")
    for base in _candidate_bases(p, fold):  # train and test found, validation misnamed
        with contextlib.suppress(DataError):
            if _find_one(base, "train") and _find_one(base, "test") and not \
                    _find_one(base, "vali") and (like := validation_lookalike(base, _NAMES["vali"])) is not None:
                return like
    best: tuple[int, list[str]] | None = None
    for present, problems in _layouts(p, fold, ratings_files):
        if present and problems and (best is None or present > best[0]):
            best = (present, problems)
    return "; ".join(best[1]) if best is not None else packed_files(p)


def _layouts(p: Path, fold: str, ratings: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """(files present, problems) of each layout a folder could have (see :func:`near_miss`)."""
    out = []
    for base in _candidate_bases(p, fold):
        problems: list[str] = []
        present = 0
        for s in SPLITS:
            try:
                found = _find_one(base, s)
            except DataError as exc:  # several candidates: files are there, but which one?
                present += 1
                problems.append(f"{base}: {exc.reason}")
                continue
            bad = _bad_entry(base, s) if found is None else None
            present += found is not None or bad is not None
            if bad is not None:
                problems.append(f"{bad[0]} {bad[1]}")
            elif found is None and ((twin := _packed_split(base, s)) or s != "vali"):
                # a packed vali.txt.gz: not carved in silence
                problems.append(f"{base / _NAMES[s][0]} is missing" + (f" ({twin})" if twin else ""))
        if problems:
            problems[-1] += (" (a LETOR folder holds train.txt and test.txt, vali.txt optional, "
                             f"in {fold}/ or directly)")
        out.append((present, problems))
    groups = [([p / "rank.train", p / "rank.test"],
               "LightGBM's example layout: rank.train + rank.test, each with its .query file"),
              ([p / f"{s}.parquet" for s in SPLITS],
               "a Parquet dataset folder holds train, vali and test.parquet, as "
               "'ltrbench convert' writes them")]
    inner = [d for d in p.iterdir() if d.is_dir() and not d.name.startswith(".")]
    for folder in [p, *inner] if len(inner) == 1 else [p]:
        named = [folder / n for n in ratings if os.path.lexists(folder / n)]
        if named:
            groups.append((named, "a ratings file must be a readable file"))
    for files, layout in groups:
        present = sum(os.path.lexists(f) for f in files)
        problems = [f"{f} {why}" for f in files if (why := entry_problem(f)) is not None]
        if problems:
            problems[-1] += f" ({layout})"
        out.append((present, problems))
    return out


def entry_problem(f: Path) -> str | None:
    """Why ``f`` cannot be read as a data file (``"is missing"``, ``"is a broken symbolic link
    to 'x'"``, ``"is a directory, not a file"``, ``"cannot be read (permission denied)"``), or
    ``None`` for a readable regular file."""
    if f.is_symlink() and not f.exists():
        return f"is a broken symbolic link to {os.readlink(f)!r}"
    if not f.exists():
        return "is missing"
    if f.is_dir():
        return "is a directory, not a file"
    if not f.is_file():
        return "is not a regular file"
    if not os.access(f, os.R_OK):
        return "cannot be read (permission denied)"
    return None


def _packed_split(base: Path, split: str) -> str | None:
    """A compressed copy of ``split``'s file in ``base`` (``train.txt.gz``), in words
    (:func:`bench.data.folder_names.packed_twin`)."""
    if not base.is_dir():
        return None
    return next((t for n in _NAMES[split] if "." in n and (t := packed_twin(base / n))), None)


def _bad_entry(base: Path, split: str) -> tuple[Path, str] | None:
    """The first entry named like ``split``'s file (``train.txt``, ``valid.txt``: the names with
    a suffix; a folder ``train/`` may be anything) in ``base`` that is there but is no file."""
    if not base.is_dir():
        return None
    for n in (n for n in _NAMES[split] if "." in n):
        f = base / n
        if os.path.lexists(f) and (why := entry_problem(f)) not in (None, "is missing"):
            return f, why
    return None


def read_letor_folder(
    path: PathLike,
    *,
    fold: str = "Fold1",
    splits: dict[str, str] | None = None,
    name: str | None = None,
    sort_by_qid: bool = False,
    vali_fraction: float = DEFAULT_VALI_FRACTION,
    seed: int = DEFAULT_SEED,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
) -> LetorSplits:
    """Read a LETOR folder (``Fold1/{train,vali,test}.txt`` or flat) into :class:`LetorSplits`.

    Without a validation file, ``vali_fraction`` of the training queries become the validation
    set (:func:`carve_validation`, seeded). ``cache_dir`` keeps the parsed arrays keyed by each
    file's sha256 (``None``: no cache; :mod:`bench.data.letor_cache`); ``progress(bytes_done,
    rows_done)`` is called while parsing, over the files together.
    """
    p = Path(path)
    check_switch_finished(p)  # a conversion killed while it replaced the files: mixed sets
    files = _distinct_splits(find_split_files(p, fold=fold, splits=splits), p)
    order = [s for s in SPLITS if files[s] is not None]
    loaded, digests = read_svmlight_files_with_digests(
        [files[s] for s in order], sort_by_qid=sort_by_qid, cache_dir=cache_dir,  # type: ignore[misc]
        progress=progress)
    parts = dict(zip(order, loaded, strict=True))
    inputs = {str(files[s]): d for s, d in zip(order, digests, strict=True)}
    meta: dict[str, object] = {
        "layout": "letor",
        "fold": fold if _uses_fold(p, files, fold) else None,
        "files": {s: str(files[s]) if files[s] is not None else None for s in SPLITS},
        "n_features": parts["train"].n_features,
    }
    if "vali" not in parts:
        train, vali, rule = carve_validation(parts["train"], fraction=vali_fraction, seed=seed)
        parts["train"], parts["vali"] = train, vali
        meta["validation"] = rule
    else:
        meta["validation"] = {"rule": "file", "file": str(files["vali"])}
    return LetorSplits(
        name=name or _default_name(p),
        train=parts["train"],
        vali=parts["vali"],
        test=parts["test"],
        inputs=inputs,
        meta=meta,
    )


def read_lightgbm_dir(
    path: PathLike,
    *,
    name: str | None = None,
    vali_fraction: float = DEFAULT_VALI_FRACTION,
    seed: int = DEFAULT_SEED,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
) -> LetorSplits:
    """Read LightGBM's ``examples/lambdarank`` folder (``rank.train``/``rank.test`` + ``.query``).

    The example ships no validation file, so ``vali_fraction`` of the training queries (by
    query, seeded) become the validation set; LightGBM's own example and tests evaluate (and
    early-stop) on ``rank.test``, which ltrbench keeps for the final evaluation only.
    Query ids are the group positions (0, 1, ...) within each file. ``cache_dir``, ``progress``
    as in :func:`read_letor_folder` (``.query`` files read each time). No other set beside it.
    """
    from bench.data.hashing import sha256_file
    from bench.data.split_sets import check_lightgbm_alone

    p = Path(path)
    check_lightgbm_alone(p, lambda: find_split_files(p))  # no other split set beside it
    train_p, test_p = p / "rank.train", p / "rank.test"
    for f in (train_p, test_p):
        if (why := entry_problem(f)) is not None:
            raise DataError(f"{f} {why}: not a LightGBM lambdarank example folder", path=p)
        if (why := entry_problem(query_sidecar(f))) is not None:
            raise DataError(f"group-size file {query_sidecar(f)} {why} (LightGBM's example "
                            f"gives each of rank.train and rank.test a .query file)", path=p)
    (train_all, test), digests = read_svmlight_files_with_digests(
        [train_p, test_p], cache_dir=cache_dir, progress=progress)
    train, vali, rule = carve_validation(train_all, fraction=vali_fraction, seed=seed)
    sums = {train_p: digests[0], test_p: digests[1]}
    read = [train_p, query_sidecar(train_p), test_p, query_sidecar(test_p)]
    return LetorSplits(
        name=name or _default_name(p),
        train=train,
        vali=vali,
        test=test,
        inputs={str(f): sums[f] if f in sums else sha256_file(f) for f in read},
        meta={
            "layout": "lightgbm",
            "files": {"train": str(train_p), "vali": None, "test": str(test_p)},
            "n_features": train_all.n_features,
            "validation": rule,
        },
    )


def read_parquet_folder(path: PathLike, *, name: str | None = None) -> LetorSplits:
    """Read ``{train,vali,test}.parquet`` (as ``ltrbench convert`` writes them)."""
    from bench.data.hashing import file_identity, sha256_file

    p = Path(path)
    check_switch_finished(p)  # a conversion killed while it replaced the files: mixed sets
    files = {s: p / f"{s}.parquet" for s in SPLITS}
    for s, f in files.items():
        if (why := entry_problem(f)) is not None:
            raise DataError(f"{s} file {f} {why} (a Parquet dataset folder holds train, vali "
                            "and test.parquet, as 'ltrbench convert' writes them)", path=p)
    before = {s: file_identity(f) for s, f in files.items()}  # the digest: of the file read
    digests = {s: sha256_file(f) for s, f in files.items()}
    from bench.data.split_sets import check_one_set  # text splits beside: one conversion's
    check_one_set(p, digests, lambda: find_split_files(p))
    parts = {s: read_parquet(f) for s, f in files.items()}
    for s, f in files.items():
        if file_identity(f) != before[s]:
            raise DataError("changed while it was read (replaced or written by another "
                            "program?): the numbers and the digest recorded would describe two "
                            "files; run again once it is complete", path=f)
    from bench.data.query_shards import check_shards_agree

    for s, data in parts.items():  # train/ shards beside train.parquet: one table, or refused
        check_shards_agree(files[s], p / s, data)
    widths = {s: d.n_features for s, d in parts.items()}
    if len(set(widths.values())) != 1:
        raise DataError(f"the splits have different feature counts {widths}", path=p)
    for s in ("vali", "test"):  # same count, other columns or order: features would be swapped
        names, train_names = parts[s].feature_names, parts["train"].feature_names
        if names != train_names:
            j = next(j for j, (a, b) in enumerate(zip(names, train_names, strict=True)) if a != b)
            raise DataError(f"feature column {j + 1} is {names[j]!r} where train.parquet has "
                            f"{train_names[j]!r}: expected the same feature columns in the same "
                            "order in every split", path=files[s], column=names[j])
    return LetorSplits(
        name=name or _default_name(p),
        train=parts["train"],
        vali=parts["vali"],
        test=parts["test"],
        inputs={str(f): digests[s] for s, f in files.items()},
        meta={"layout": "parquet", "files": {s: str(f) for s, f in files.items()},
              "validation": {"rule": "file", "file": str(files["vali"])}},
    )


def read_folder(
    path: PathLike,
    *,
    fold: str = "Fold1",
    name: str | None = None,
    cache_dir: PathLike | None = None,
    progress: Progress | None = None,
) -> LetorSplits:
    """Read any folder layout :func:`detect_layout` recognises (``cache_dir``, ``progress``: as
    in :func:`read_letor_folder`; Parquet folders use neither)."""
    layout = detect_layout(path, fold=fold)
    if layout == "lightgbm":
        return read_lightgbm_dir(path, name=name, cache_dir=cache_dir, progress=progress)
    if layout == "parquet":
        return read_parquet_folder(path, name=name)
    if layout == "letor":
        return read_letor_folder(path, fold=fold, name=name, cache_dir=cache_dir,
                                 progress=progress)
    why = near_miss(path, fold=fold)
    raise DataError(
        (f"not a dataset folder: {why}" if why else
         f"not a dataset folder: expected {fold}/{{train,vali,test}}.txt, "
         "{train,vali,test}.txt, rank.train + rank.test (LightGBM example) or "
         "{train,vali,test}.parquet"), path=path)


def carve_validation(
    data: LetorData, *, fraction: float = DEFAULT_VALI_FRACTION, seed: int = DEFAULT_SEED
) -> tuple[LetorData, LetorData, dict[str, object]]:
    """Split ``data`` by query into (train, validation, rule) with a fixed seed.

    ``n_vali = round(fraction * n_queries)`` (at least 1, at most ``n_queries - 1``) queries,
    the first ``n_vali`` of ``numpy.random.default_rng(seed).permutation(n_queries)``; both
    parts keep the queries in their original order. No query is split.
    """
    if not 0.0 < fraction < 1.0:
        raise DataError(f"validation fraction must be in (0, 1), got {fraction}")
    nq = data.n_queries
    if nq < 2:
        raise DataError(
            f"cannot carve a validation set out of {nq} query(ies): need at least 2",
            path=data.source or None,
        )
    n_vali = min(nq - 1, max(1, round(fraction * nq)))
    perm = np.random.default_rng(seed).permutation(nq)
    vali_groups = np.sort(perm[:n_vali])
    train_groups = np.sort(perm[n_vali:])
    vali = data.take_queries(vali_groups)
    train = data.take_queries(train_groups)
    rule: dict[str, object] = {
        "rule": "carved from train by query",
        "source": data.source,
        "fraction": fraction,
        "seed": seed,
        "rng": "numpy.random.default_rng(seed).permutation(n_queries)[:n_vali]",
        "n_queries": nq,
        "n_vali_queries": int(n_vali),
        "vali_query_ids": [int(q) for q in data.query_ids[vali_groups]],
    }
    return (
        replace(train, meta={**train.meta, "carved": "train"}),
        replace(vali, meta={**vali.meta, "carved": "vali"}),
        rule,
    )


def _candidate_bases(p: Path, fold: str) -> list[Path]:
    sub = entry_ignoring_case(p, fold, what="fold folders")  # Fold1/ or fold1/, never both
    bases = [sub, p] if sub.is_dir() else [p]
    subdirs = [d for d in sorted(p.iterdir()) if d.is_dir() and not d.name.startswith(".")]
    if len(subdirs) == 1 and subdirs[0] != sub and not FOLD_NAME.fullmatch(subdirs[0].name):
        inner = subdirs[0]
        sub = entry_ignoring_case(inner, fold, what="fold folders")
        bases += [sub, inner] if sub.is_dir() else [inner]
    return bases


def _two_datasets(p: Path, fold: str) -> str | None:
    """Why ``p`` is ambiguous when ``p/<fold>/`` and ``p`` itself each hold train and test."""
    sub = entry_ignoring_case(p, fold, what="fold folders")
    inner, flat = _find_one(sub, "train"), _find_one(p, "train")
    if inner is None or flat is None or _find_one(sub, "test") is None \
            or _find_one(p, "test") is None:
        return None
    return (f"two datasets in one folder: {sub.name}/{inner.name} and {flat.name} beside it, each "
            f"with a test file; name the folder you mean ({sub}) or move one set away")


def _find_one(base: Path, split: str) -> Path | None:
    """The one file of ``split`` in ``base`` (a name of :data:`_NAMES`, or one ending in a
    suffix of :data:`_SUFFIXES`, compared without case: ``Train.txt`` is found as on a macOS or
    Windows disk), ``None`` when there is none; two distinct ones (``vali.txt`` and
    ``valid.txt``, ``train.txt`` and ``Train.txt``, ``train.txt`` and ``set1.train.txt``; two
    links to one file are one) are a :class:`DataError` naming them: which one was meant cannot
    be told."""
    if not base.is_dir():
        return None
    names = [n.lower() for n in _NAMES[split]]
    found = [base / n for n in _NAMES[split] if (base / n).is_file()]
    entries = sorted(f for f in base.iterdir() if f.is_file())
    found += [f for f in entries if f.name.lower() in names and f.name not in _NAMES[split]]
    found += [f for f in entries if f.name.lower().endswith(_SUFFIXES[split])]
    distinct = [f for i, f in enumerate(found)
                if not any(os.path.samefile(f, g) for g in found[:i])]
    if len(distinct) > 1:
        raise DataError(f"several {split} files ({', '.join(m.name for m in distinct)}): name "
                        "the one to use (or remove the others)", path=base)
    return distinct[0] if distinct else None


def _uses_fold(p: Path, files: dict[str, Path | None], fold: str) -> bool:
    train = files["train"]
    return train is not None and train.parent.name == fold


def _default_name(p: Path) -> str:
    return p.resolve().name
