"""A catalogue dataset's files checked against its card's published shape.

A card may state ``n_features`` (MSLR-WEB 136, MQ2007/MQ2008 46, OHSUMED 45, Yahoo 700,
Istella 220) and ``max_label`` (MSLR-WEB, Yahoo, Istella 4; LETOR 3.0/4.0 2): the numbers of
each dataset's own description (the card's ``size``). A file loaded under the card's name with a
feature index beyond ``n_features`` or a label outside ``0..max_label`` (or not an integer) is
not the published file (a truncated, edited or mislabelled copy, another dataset's file in the
folder): :func:`check_card_shape` refuses it, naming the file, its line and what the card says,
instead of training on it. A folder with other data is loaded by path, where no card applies.
"""

from __future__ import annotations

import numpy as np

from bench.data.checks import _on_file_line
from bench.data.letor import LetorData, LetorSplits
from bench.datasets.catalogue import Card
from bench.errors import DataError


def check_card_shape(card: Card, splits: LetorSplits) -> None:
    """Every split of ``splits`` within the card's ``n_features`` and ``max_label`` (0: not
    stated, not checked); a :class:`DataError` at the first file line beyond them."""
    parts = {data.source or f"{splits.name} ({name})": data
             for name, data in splits.splits().items()}
    if card.n_features and any(d.n_features > card.n_features for d in parts.values()):
        _refuse_features(card, parts)
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

