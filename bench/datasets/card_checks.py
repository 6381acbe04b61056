"""A catalogue dataset's files checked against its card's published shape.

A card may state ``n_features`` (MSLR-WEB 136, MQ2007/MQ2008 46, OHSUMED 45, Yahoo 700,
Istella 220; with ``dense_features`` every line lists all of them, so narrower files are refused) and ``max_label`` (MSLR-WEB, Yahoo, Istella 4; LETOR 3.0/4.0 2): the numbers of
each dataset's own description (the card's ``size``). A file loaded under the card's name with a
feature index beyond ``n_features`` or a label outside ``0..max_label`` (or not an integer) is
not the published file (a truncated, edited or mislabelled copy, another dataset's file in the
folder): :func:`check_card_shape` refuses it, naming the file, its line and what the card says,
instead of training on it. Files whose queries and rows, all splits together, differ from the
card's ``n_queries`` / ``n_rows`` are said (:func:`check_card_counts`: a truncated MSLR file read
9,000 of 10,000 queries in silence). A folder with other data is loaded by path, where no card
applies.

:func:`check_inputs` compares the SHA-256 of every file a catalogue load read with the card's:
a card's file is found as the reader finds it, without regard to letter case (``s3.txt`` for
``S3.txt``) and through a symbolic link (the link's name, not its target's, is the card's
path); a card that vouches for its files (a digest known) refuses a file it does not list (a
``Fold2/`` copied beside the OHSUMED parts the card builds Fold2 from): no unverified file is
read under a catalogue name.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from bench.data.checks import _on_file_line
from bench.data.folder_names import path_ignoring_case
from bench.data.letor import LetorData, LetorSplits
from bench.datasets.catalogue import UNKNOWN, Card
from bench.errors import DataError


def check_card_shape(card: Card, splits: LetorSplits) -> None:
    """Every split of ``splits`` within the card's ``n_features`` and ``max_label`` (0: not
    stated, not checked); a :class:`DataError` at the first file line beyond them."""
    parts = {data.source or f"{splits.name} ({name})": data
             for name, data in splits.splits().items()}
    if card.n_features and any(d.n_features > card.n_features for d in parts.values()):
        _refuse_features(card, parts)
    if card.dense_features and card.n_features:  # MSLR-WEB lines list all 136, zeros written out
        for where, data in parts.items():
            if data.n_rows and data.n_features < card.n_features:
                raise DataError(
                    f"features only up to {data.n_features}: every line of {card.spec!r} lists "
                    f"all {card.n_features} features (its card); this is not the published file "
                    "(another dataset's files in its folder, e.g. LETOR 4.0's 46-feature ones?); "
                    "load the folder by path to use other data", path=where)
    for where, data in parts.items():
        if card.max_label and data.n_rows:
            y = data.y
            bad = np.flatnonzero(~((y >= 0) & (y <= card.max_label) & (y == np.round(y))))
            if bad.size:
                row = int(bad[0])
                raise _on_file_line(DataError(
                    f"label {float(y[row]):g} is not a label of {card.spec!r}: its card says "
                    f"integer labels 0..{card.max_label}; this is not the published file "
                    "(load the folder by path to use other data)", path=where, row=row + 1), data)
    check_card_counts(card, splits)


class CardCountWarning(UserWarning):
    """Files loaded under a card's name hold other counts than the card states."""


def check_card_counts(card: Card, splits: LetorSplits) -> None:
    """The queries and rows of all the splits together against the card's ``n_queries`` and
    ``n_rows`` (0: not stated, not checked). Other counts are said (:class:`CardCountWarning`,
    naming each split's file and counts): a truncated download or copy, a part missing, another
    variant's files read as the published set. Said, not refused: a stand-in or a subset in the
    card's folder is read by the name on purpose (the stand-in tests of the cards do), but its
    numbers are not the dataset's, which the warning says."""
    parts = splits.splits()
    queries = sum(d.n_queries for d in parts.values())
    rows = sum(d.n_rows for d in parts.values())
    if (not card.n_queries or queries == card.n_queries) and (not card.n_rows or rows == card.n_rows):
        return
    said = "; ".join(f"{name} {d.source or '(built)'}: {d.n_queries:,} queries, {d.n_rows:,} rows"
                     for name, d in parts.items())
    stated = " and ".join(f"{n:,} {what}" for n, what in ((card.n_queries, "queries"),
                                                        (card.n_rows, "rows")) if n)
    sources = [d.source for d in parts.values() if d.source]
    where = os.path.commonpath(sources) if sources else card.spec  # the dataset or fold folder
    warnings.warn(CardCountWarning(
        f"{where}: {queries:,} queries and {rows:,} rows in all, but the card of {card.spec!r} "
        f"states {stated} (its splits together: {said}): this is not the published file set (a "
        "truncated download or copy, a part or fold missing?), and its numbers are not the "
        f"dataset's. Fetch or copy it again ('ltrbench datasets fetch {card.name}' where the "
        "card has a download); to use a subset or stand-in on purpose, load its folder by path, "
        "which names it as what it is"), stacklevel=2)


def _refuse_features(card: Card, parts: dict[str, LetorData]) -> None:
    """The first row with a value beyond the card's features, else (only explicit zeros there:
    every file is read to the widest file's width) the files named together."""
    text = (f"feature index above {card.n_features}: {card.spec!r} has {card.n_features} "
            "features (its card); this is not the published file (load the folder by path to "
            "use other data)")
    for where, data in parts.items():
        beyond = data.X[:, card.n_features:]
        rows = np.flatnonzero((beyond != 0).any(axis=1))
        if rows.size:
            row = int(rows[0])
            col = card.n_features + int(np.flatnonzero(beyond[row] != 0)[0]) + 1
            raise _on_file_line(DataError(f"feature {col}: {text}", path=where, row=row + 1),
                                data)
    width = max(d.n_features for d in parts.values())
    raise DataError(f"{text}; one of {', '.join(parts)} holds index {width} (with the value 0)")



def check_inputs(card: Card, folder: Path, inputs: dict[str, str]) -> None:
    """The files a catalogue load read (``inputs``: path -> sha256) against the card: a
    :class:`DataError` naming the first file whose digest differs from the card's, or that the
    card does not list while it vouches for its files (some digest known)."""
    rel = {}
    for path, digest in inputs.items():
        rel[_relative(Path(path), folder)] = digest
    check_against_card(card, folder, rel, listed_only=True)


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` as written (a link's own name), else resolved."""
    for p, f in ((path, folder), (Path(os.path.abspath(path)), Path(os.path.abspath(folder))),
                 (path.resolve(), folder.resolve())):
        try:
            return p.relative_to(f).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def check_against_card(card: Card, folder: Path, digests: dict[str, str], *,
                       listed_only: bool = False) -> None:
    """``digests`` (path relative to ``folder`` -> sha256) against the card's files, the paths
    compared without letter case; ``listed_only``: a file the card does not list is refused
    when the card knows a digest of any file."""
    listed = {rel.casefold(): digest for rel, digest in card.files.items()}
    vouched = any(d != UNKNOWN for d in card.files.values())
    for rel, actual in digests.items():
        expected = listed.get(rel.casefold())
        if expected is None and listed_only and vouched:
            raise DataError(
                f"{rel} is not a file of the {card.name!r} card (it lists "
                f"{', '.join(card.files)}), so it cannot be verified, and under the card's name "
                "only files it vouches for are read (a fold it builds from its parts is built "
                "from them). Move it out of the folder (or rename its fold folder), or load the "
                "folder by path to use it on purpose", path=folder / rel)
        if expected not in (None, UNKNOWN) and expected != actual:
            raise DataError(
                f"sha256 {actual} differs from the {card.name!r} card ({expected}): this is not "
                "the published file. Run 'ltrbench datasets verify' for details, or load the "
                "folder by path to use a modified copy on purpose",
                path=folder / rel,
            )


def fold_files(card: Card, spec: str) -> dict[str, str]:
    """The split files of the fold ``spec`` asks for (``mslr-web10k:Fold3``) that the card does
    not list itself (it lists Fold1's), each with an unknown digest, for ``datasets verify``:
    a fold that is not there is missing, not "OK" from Fold1's files. None for a card that builds
    its folds from listed part files (OHSUMED's S1..S5) or a spec without a fold."""
    option = spec.partition(":")[2].strip().lower()
    fold = next((f for f in card.folds if f.lower() == option), None)
    if fold is None or any(Path(rel).name.lower() == "s1.txt" for rel in card.files):
        return {}
    files = {t.format(fold=fold): UNKNOWN for t in card.splits.values()}
    return {rel: d for rel, d in files.items() if rel not in card.files}


def foreign_files(card: Card, root: Path) -> list[str]:
    """The split files of the card's folds in ``root`` that a card vouching for its files (a
    digest known) does not list (``Fold2/train.txt`` beside OHSUMED's parts): what a load
    under the catalogue name refuses (:func:`check_inputs`), for ``datasets verify``."""
    if not any(d != UNKNOWN for d in card.files.values()):
        return []
    listed = {rel.casefold() for rel in card.files}
    found = []
    for fold in card.folds:
        for template in card.splits.values():
            rel = template.format(fold=fold)
            f = path_ignoring_case(root, rel)
            if f is not None and rel.casefold() not in listed:
                found.append(f.relative_to(root).as_posix())
    return found
