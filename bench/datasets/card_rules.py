"""What a dataset card's own fields must say before any file is read (called by
:func:`bench.datasets.catalogue.load_card` for a card and each of its variants): a name a
dataset spec can name, counts that are not negative (and ``n_queries`` / ``n_rows`` stated in
its ``size`` text too), split paths that stay inside the dataset
folder with ``{fold}`` as their only placeholder, present exactly when the card has folds (a
card with folds whose paths name none would read one set of files for every fold)."""

from __future__ import annotations

import re
import string
from pathlib import Path, PurePosixPath
from typing import Any

from bench.errors import ConfigError

#: A card's name as a dataset spec reads it (``NAME`` or ``NAME:OPTION``).
_CARD_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")


def check_card_names(card: Any, variants: dict[str, Any], p: Path) -> None:
    """A name a spec can name and no variant that renames the card, else a ConfigError naming
    the card file ``p`` (``card``: a :class:`bench.datasets.catalogue.Card`, which imports this)."""
    if not _CARD_NAME.fullmatch(card.name):
        raise ConfigError(f"{p}: name {card.name!r}: a card name is lower-case ASCII letters, "
                          "digits, '.', '_' and '-' (a dataset spec is NAME or NAME:OPTION)")
    for v, table in variants.items():
        if "name" in table:
            raise ConfigError(f"{p} [variants.{v}]: name: a variant keeps its card's name (its "
                              f"spec is {card.name}:{v})")


def check_card_paths(card: Any, where: str) -> None:
    """Counts not below 0; ``dir`` and ``aliases`` single folder names (``fetch`` writes to
    ``<data dir>/<dir>``); ``archive_root``, ``[files]``, ``[file_urls]`` and split paths inside
    the dataset folder; ``{fold}`` the split paths' only placeholder, in every path when the card
    has folds and in none when it has none."""
    for key in ("n_features", "max_label", "archive_size", "n_queries", "n_rows"):
        if getattr(card, key) < 0:
            raise ConfigError(f"{where}: {key} = {getattr(card, key)}; expected 0 (not stated) "
                              "or more")
    for key in ("n_queries", "n_rows"):  # the number and the card's own words agree
        n = getattr(card, key)
        if n and f"{n:,}" not in card.size and not re.search(rf"(?<![\d,]){n}(?![\d,])", card.size):
            raise ConfigError(f"{where}: {key} = {n}, but its size text {card.size!r} does not "
                              f"state {n:,}: give the published count in both")
    if len(set(card.folds)) != len(card.folds):
        raise ConfigError(f"{where}: folds {list(card.folds)} lists a fold twice")
    for key, folder in (("dir", card.dir), *(("aliases", a) for a in card.aliases)):
        if (key == "aliases" and not folder) or folder in (".", "..") or re.search(r"[/\\:]", folder):
            raise ConfigError(f"{where}: {key} {folder!r}: a folder name in the data directory "
                              "(one name, without '/', '\\', ':' or '..')")
    inside = [("archive_root", card.archive_root), *((f"[files] {f!r}", f) for f in card.files),
              *((f"[file_urls] {f!r}", f) for f in card.file_urls),
              *((f"[splits] {s}", t) for s, t in card.splits.items())]
    for key, rel in inside:
        path = PurePosixPath(rel.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or re.match(r"[A-Za-z]:", rel):
            raise ConfigError(f"{where}: {key} {rel!r} leaves the dataset folder; give a path "
                              "inside it")
    for split, template in card.splits.items():
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        except ValueError:
            fields = {"{"}
        if fields - {"fold"}:
            raise ConfigError(f"{where}: [splits] {split} {template!r}: its only placeholder "
                              "may be {fold} (write a brace twice to keep it)")
        if bool(card.folds) != ("fold" in fields):
            raise ConfigError(f"{where}: [splits] {split} {template!r}: " + (
                "without {fold}, every one of the card's folds would read this one file" if
                card.folds else "{fold} in a card without folds (list them in folds)"))
