"""The dataset catalogue: one TOML card per dataset.

The cards live in the package (``bench/data/cards/<name>.toml``) so that an installed wheel has
them, and are read with :mod:`importlib.resources`; ``datasets/README.md`` in the repository
points at them and ``datasets/catalogue.md`` is the table :func:`render_markdown` generates
(``ltrbench datasets list --format markdown``).

A card holds: ``name``, ``title``, ``kind`` (``letor`` | ``ratings`` | ``synthetic``),
``loader`` (``movielens`` | ``letor`` | ``lightgbm`` | ``synthetic``), ``homepage``, ``url``
(download URL; empty when there is no public one), ``archive`` (file name), ``archive_sha256``
(hex digest, or ``"unknown"``), ``archive_size`` (bytes, 0 = unknown), ``archive_format``
(``zip`` | ``tar.gz`` | ``tar.bz2`` | ``rar`` | ``files`` | ``none``), ``archive_root`` (the
folder inside the archive that becomes the dataset folder; empty = the whole archive),
``dir`` (folder name in the data directory) and ``aliases`` (other accepted folder names),
``layout`` (MovieLens layout), ``size``, ``licence``, ``redistributable``, ``citation``,
``notes``, ``hash_source`` (where the digests come from), ``n_features`` and ``max_label`` (the
published feature count and highest label: a loaded file beyond them is refused, 0 = not stated),
``n_queries`` and ``n_rows`` (the published queries and (query, document) rows of all the
splits of a fold together: files that hold other counts are refused, 0 = not stated),
``dense_features`` (every line lists all ``n_features``: files narrower than that are refused), ``folds`` (e.g. ``Fold1``..``Fold5``),
``[splits]`` (train / vali / test paths inside the folder, ``{fold}`` replaced), ``[files]``
(path inside the folder -> sha256 or ``"unknown"``), ``[file_urls]`` (for
``archive_format = "files"``: path -> URL) and ``[variants.<name>]`` tables that override any of
these (Yahoo ``set1``/``set2``, Istella ``full``/``s``/``x``), with ``default_variant``.

Generated LETOR datasets (``kind = "synthetic"``, ``loader = "letor-shapes"``:
``synthetic-mslr30k``, ``synthetic-yahoo``, ``synthetic-istella``) carry a ``[shape]`` table: the published numbers of
the dataset they stand in for and the source of each (read by
:func:`bench.datasets.letor_shapes.shape_of`); their ``[splits]`` give the file layout they are
written in.

A dataset spec is ``NAME`` or ``NAME:OPTION`` where ``OPTION`` is a variant (``istella:s``) or
a fold (``mslr-web10k:Fold3``); for a generated LETOR dataset it is ``SCALE`` and/or ``seed=N``
(``synthetic-mslr30k:0.01``, ``synthetic-yahoo:0.1,seed=2``; see :func:`generation_options`).
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.data.toml import read_toml
from bench.datasets.card_rules import check_card_names, check_card_paths
from bench.errors import (
    ConfigError,
    did_you_mean,
    non_ascii,
    refuse_foreign_space,
    spelled_choice,
)

KINDS = ("letor", "ratings", "synthetic")
#: The loader of generated LETOR datasets (:mod:`bench.datasets.letor_shapes`).
SHAPES_LOADER = "letor-shapes"
LOADERS = ("movielens", "letor", "lightgbm", "synthetic", SHAPES_LOADER)
ARCHIVE_FORMATS = ("zip", "tar.gz", "tar.bz2", "rar", "files", "none")
UNKNOWN = "unknown"
_REQUIRED = ("name", "title", "kind", "loader", "homepage", "size", "licence", "citation")
_SCALARS = {
    "name": str, "title": str, "kind": str, "loader": str, "homepage": str, "url": str,
    "archive": str, "archive_sha256": str, "archive_size": int, "archive_format": str,
    "archive_root": str, "dir": str, "layout": str, "size": str, "licence": str,
    "redistributable": bool, "citation": str, "notes": str, "hash_source": str,
    "default_variant": str, "n_features": int, "max_label": int, "dense_features": bool,
    "n_queries": int, "n_rows": int,
}
_TABLES = ("splits", "files", "file_urls")
_LISTS = ("aliases", "folds")


@dataclass(frozen=True)
class Card:
    """One dataset card (see the module docstring for the fields)."""

    name: str
    title: str
    kind: str
    loader: str
    homepage: str
    size: str
    licence: str
    citation: str
    url: str = ""
    archive: str = ""
    archive_sha256: str = UNKNOWN
    archive_size: int = 0
    archive_format: str = "none"
    archive_root: str = ""
    dir: str = ""
    aliases: tuple[str, ...] = ()
    layout: str = ""
    redistributable: bool = False
    notes: str = ""
    hash_source: str = ""
    folds: tuple[str, ...] = ()
    splits: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    file_urls: dict[str, str] = field(default_factory=dict)
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    default_variant: str = ""
    n_features: int = 0
    max_label: int = 0
    dense_features: bool = False
    n_queries: int = 0
    n_rows: int = 0
    shape: dict[str, Any] = field(default_factory=dict)
    variant: str = ""
    path: str = ""

    @property
    def downloadable(self) -> bool:
        """Whether ``fetch`` can download it (a public URL in a format it can unpack)."""
        if self.archive_format == "files":
            return bool(self.file_urls)
        return bool(self.url) and self.archive_format in ("zip", "tar.gz", "tar.bz2")

    @property
    def folder_names(self) -> tuple[str, ...]:
        """Folder names under which the dataset is recognised in a data directory."""
        names = [self.dir or self.name, *self.aliases]
        return tuple(dict.fromkeys(names))

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.variant}" if self.variant else self.name

    def with_variant(self, variant: str | None) -> Card:
        """This card with a variant's overrides applied (``None``/``""``: the default variant)."""
        if not self.variants:
            if variant:
                raise ConfigError(f"dataset {self.name!r} has no variants (asked for {variant!r})")
            return self
        chosen = variant or self.default_variant
        if chosen not in self.variants:
            raise ConfigError(
                f"dataset {self.name!r} has no variant {chosen!r}; valid: "
                f"{', '.join(sorted(self.variants))}"
            )
        fields = _coerce(self.variants[chosen], where=f"{self.path} [variants.{chosen}]")
        return replace(self, **fields, variant=chosen)

    def variants_in(self, folder: Path) -> list[str]:
        """The other variants whose split files are all in ``folder`` (this variant's folder):
        ``yahoo-ltr:set2`` where ``yahoo-ltr`` (set 1) finds only ``set2.*.txt``."""
        found = []
        for name in sorted(self.variants):
            other = self.with_variant(name)
            if name != self.variant and other.dir == self.dir and other.splits and all(
                    (folder / rel).is_file() for rel in other.splits.values()):
                found.append(other.spec)
        return found

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("path",)}
        out["aliases"] = list(self.aliases)
        out["folds"] = list(self.folds)
        return out


def cards_dir() -> Path:
    """Folder holding the card files (inside the installed package)."""
    return Path(str(importlib.resources.files("bench.datasets") / "cards"))


def load_card(path: str | Path) -> Card:
    """Read and validate one card file; a bad card is a :class:`ConfigError` naming file and key."""
    p = Path(path)
    raw = read_toml(p)
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise ConfigError(f"{p}: card lacks {', '.join(missing)}")
    variants = raw.pop("variants", {})
    if not isinstance(variants, dict) or not all(isinstance(v, dict) for v in variants.values()):
        raise ConfigError(f"{p}: [variants] must hold tables")
    fields = _coerce(raw, where=str(p))
    card = Card(**fields, variants=variants, path=str(p))
    if card.kind not in KINDS:
        raise ConfigError(f"{p}: kind {card.kind!r}; valid: {', '.join(KINDS)}")
    if card.loader not in LOADERS:
        raise ConfigError(f"{p}: loader {card.loader!r}; valid: {', '.join(LOADERS)}")
    if (card.loader == SHAPES_LOADER) != bool(card.shape):
        raise ConfigError(f"{p}: a [shape] table goes with loader {SHAPES_LOADER!r}, and only there")
    if card.loader == SHAPES_LOADER and (card.kind != "synthetic" or variants):
        raise ConfigError(f"{p}: loader {SHAPES_LOADER!r} needs kind 'synthetic' and no variants")
    check_card_names(card, variants, p)
    if card.loader not in _KIND_LOADERS[card.kind]:
        raise ConfigError(f"{p}: kind {card.kind!r} is not read by loader {card.loader!r}; a "
                          f"{card.kind} card has loader {' or '.join(_KIND_LOADERS[card.kind])}")
    if variants and card.default_variant not in variants:
        raise ConfigError(f"{p}: default_variant {card.default_variant!r} is not a variant")
    for v in variants:  # each variant must itself be a valid card
        _validate(card.with_variant(v), p)
    _validate(card, p)
    return card


@functools.lru_cache(maxsize=1)
def load_catalogue() -> dict[str, Card]:
    """Every card, by name (sorted)."""
    cards: dict[str, Card] = {}
    folders: dict[str, str] = {}
    for f in sorted(cards_dir().glob("*.toml")):
        card = load_card(f)
        if card.name != f.stem:
            raise ConfigError(f"{f}: card name {card.name!r} differs from its file name")
        for folder in card.folder_names:  # data folders are found ignoring case
            other = folders.setdefault(folder.casefold(), card.name)
            if other != card.name:
                raise ConfigError(f"{f}: cards {other!r} and {card.name!r} both read the data "
                                  f"folder {folder!r} (dir or aliases); give each card its own")
        cards[card.name] = card
    return dict(sorted(cards.items()))


def card_names() -> list[str]:
    return list(load_catalogue())


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``"istella:s"`` -> ``("istella", "s")``; ``"ml-25m"`` -> ``("ml-25m", None)``.

    A colon with nothing after it (``"istella:"``) is a :class:`ConfigError`: it names no
    variant, and reading it as the default would hide a half-typed option."""
    name, sep, option = spec.partition(":")
    if sep and not option.strip():
        raise ConfigError(f"dataset {spec!r}: nothing after ':'; give a variant, fold or scale "
                          f"(e.g. {name.strip() or 'NAME'}:Fold1) or leave out the ':'")
    return name.strip().lower(), (option.strip() or None) if sep else None


def canonical_dataset(text: str) -> str:
    """A catalogue name as the catalogue spells it (``" Synthetic "`` is ``synthetic``, as
    :func:`parse_spec` reads it; an option after ``:`` kept, stripped): one dataset, one config,
    one hash. A path (``/``, ``\\``, a leading ``.``, a ``.`` in the name), an unknown name and a
    colon with nothing after it (refused when the dataset is resolved) stay as written."""
    name, sep, option = text.partition(":")
    if any(ch in text for ch in "/\\") or text.startswith(".") or "." in name \
            or (sep and not option.strip()) or name.strip().lower() not in card_names():
        return text
    refuse_foreign_space(name, "dataset", "a catalogue name")  # 'synthetic\u00a0': no name
    if name != name.strip().lower():  # said once, a choice's rule (bench.errors.spelled_choice)
        spelled_choice(name, [name.strip().lower()], "dataset")
    return name.strip().lower() + (f":{option.strip()}" if sep else "")


def tidy_folder(text: str) -> str:
    """``--dataset``: an existing folder's path without the spellings that name the same folder
    in every case (one config, one hash): ``data/``, ``data//``, ``./data`` and ``a//b`` are
    ``data`` and ``a/b`` (a script's ``$(DIR)/`` gave each run a hash of its own, so a bare
    ``--resume`` did not find the run started as ``data``). Kept as written: anything else (a
    file, a missing path, a ``:`` option), and a tidied text that would read as a catalogue
    name (``./synthetic/`` is the user's folder, ``synthetic`` the catalogue's). A config
    file's ``dataset`` stays as the file writes it (its hash is the file's)."""
    if ":" in text:
        return text
    tidy = re.sub(r"(?<=.)/{2,}", "/", text).rstrip("/") or text
    while tidy.startswith("./") and len(tidy) > 2:
        tidy = tidy[2:].lstrip("/")
    try:
        if tidy == text or not os.path.isdir(text) or not os.path.samefile(text, tidy):
            return text
    except OSError:  # gone between the two looks, or unreadable: as written
        return text
    looks_like_path = "/" in tidy or tidy.startswith(".") or "." in tidy
    return tidy if looks_like_path or tidy.lower() not in card_names() else text


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset choice, parsed once (:func:`bench.datasets.resolve.resolve_spec`) and passed
    down as this value: nothing below the door parses the text again.

    ``text`` is what the user wrote (the manifest's ``dataset.spec``, the run folder's slug);
    ``card`` is the catalogue card with its variant applied, ``None`` for a path (``path``);
    ``fold`` the LETOR fold (``mslr-web10k:Fold3``), ``scale`` and ``seed`` a generated
    dataset's options (``synthetic-mslr30k:0.01,seed=2``, see :func:`generation_options`).
    """

    text: str
    name: str
    option: str | None = None
    card: Card | None = None
    path: Path | None = None
    fold: str = "Fold1"
    scale: float = 1.0
    seed: int = 0

    @property
    def display_name(self) -> str:
        """The dataset's name in the run's tables: the card's spec, ``NAME:FoldK`` for a fold
        other than the first, ``NAME:SCALE[,seed=N]`` for a generated dataset (as
        :func:`bench.datasets.letor_shapes.spec_name`); a path's name is its folder's or file's,
        known when it is read."""
        card = self.card
        if card is None:
            return self.text
        if card.loader == SHAPES_LOADER:
            if self.scale == 1.0 and self.seed == 0:
                return card.name
            return f"{card.name}:{self.scale:g}" + (f",seed={self.seed}" if self.seed else "")
        if card.loader == "letor" and card.folds and self.fold != card.folds[0]:
            return f"{card.name}:{self.fold}"
        return card.spec


def catalogue_spec(text: str, name: str, option: str | None) -> DatasetSpec:
    """The :class:`DatasetSpec` of a catalogue name already split by :func:`parse_spec`: the card
    (variant applied), and the fold or generation options it asks for. Unknown names raise
    :class:`ConfigError` listing the valid ones."""
    option = _spelled_as_the_card(name, option)
    card = _card_for(name, option, text)
    if card.loader == SHAPES_LOADER:
        scale, seed = _generation(name, option, text)
        return DatasetSpec(text, name, option, card, scale=scale, seed=seed)
    fold = _fold(option, card) if card.loader == "letor" else "Fold1"
    return DatasetSpec(text, name, option, card, fold=fold)


def get_card(spec: str) -> Card:
    """The card for ``NAME`` or ``NAME:VARIANT`` (a fold option is left for the loader).

    Unknown names raise :class:`ConfigError` listing the valid ones.
    """
    name, option = parse_spec(spec)
    return _card_for(name, _spelled_as_the_card(name, option), spec)


def _spelled_as_the_card(name: str, option: str | None) -> str | None:
    """A variant or fold written in another case (``istella:X``, the dataset's own spelling
    ``istella-X``; ``mslr-web10k:fold3``, as a path's ``PATH:fold3`` is read) as the card
    spells it, when exactly one of its variants and folds matches; else ``option`` as given
    (then refused, naming the valid ones)."""
    card = load_catalogue().get(name)
    if option is None or card is None or option in card.variants or option in card.folds:
        return option
    same = [o for o in (*card.variants, *card.folds) if o.lower() == option.lower()]
    return same[0] if len(same) == 1 else option


def _card_for(name: str, option: str | None, spec: str) -> Card:
    cards = load_catalogue()
    if name not in cards and os.path.lexists(spec):  # `datasets info ./MQ2008`: a folder
        raise ConfigError(f"{spec!r} is a path, not a catalogue name: the datasets commands "
                          "take a name of 'ltrbench datasets list'; a folder of your own is read "
                          f"by 'ltrbench run --dataset {spec}'")
    if name not in cards:
        odd = non_ascii(name)  # 'synthetiс' (a Cyrillic с) reads as 'synthetic': named
        odd = f" (it holds {odd}, not ASCII: a look-alike?)" if odd else ""
        raise ConfigError(f"unknown dataset {name!r}{odd}; {did_you_mean(name, cards)}"
                          f"valid: {', '.join(cards)}")
    card = cards[name]
    if card.loader == SHAPES_LOADER:
        from bench.datasets.folds import fold_number, fold_suffix  # lazy: it loads NumPy

        head, fold = fold_suffix(spec)  # NAME[:SCALE[,seed=N]]:FoldK, as resolve_spec reads it
        if fold is not None:
            fold_number(spec, fold, name=name)
            spec, option = head, parse_spec(head)[1]
        _generation(name, option, spec)  # a bad SCALE or seed is an error here, naming the grammar
        return card
    if option and card.folds and option in card.folds and option not in card.variants:
        return card.with_variant(None)
    if option and not card.variants:  # neither a variant nor a fold: say what it does take
        if card.folds:
            raise ConfigError(f"dataset {name!r} has no fold {option!r}; valid: "
                              f"{', '.join(card.folds)} (e.g. {name}:{card.folds[0]})")
        raise ConfigError(f"dataset {name!r} takes no option after ':' (no variants, folds, scale "
                          f"or seed); got {option!r} in {spec!r}: write {name!r}")
    return card.with_variant(option)


def generation_options(spec: str) -> tuple[float, int]:
    """``(scale, seed)`` of a generated LETOR dataset spec (scale 1 and seed 0 by default).

    ``synthetic-mslr30k:0.01`` -> ``(0.01, 0)``; ``synthetic-yahoo:0.1,seed=2`` -> ``(0.1, 2)``;
    ``synthetic-istella:seed=3`` -> ``(1.0, 3)``. ``scale=`` may be written out. The scale
    multiplies the published query and row counts (``0 < SCALE <= 10``); the seed is an
    integer ``>= 0``.
    """
    name, option = parse_spec(spec)
    return _generation(name, option, spec)


def _generation(name: str, option: str | None, spec: str) -> tuple[float, int]:
    scale, seed = 1.0, 0
    for item in (option or "").split(","):
        key, sep, value = (p.strip() for p in item.partition("="))
        if not key:
            continue
        try:
            if not sep or key == "scale":
                scale = float(value if sep else key)
                if not 0.0 < scale <= 10.0:
                    raise ValueError
            elif key == "seed":
                seed = int(value)
                if seed < 0:
                    raise ValueError
            else:
                raise ValueError
        except ValueError:
            raise ConfigError(
                f"dataset spec {spec!r}: expected NAME:SCALE[,seed=N] with 0 < SCALE <= 10 and "
                f"an integer seed >= 0 (e.g. {name}:0.01,seed=1); got {item!r}"
            ) from None
    return scale, seed


def fold_of(spec: str, card: Card) -> str:
    """The fold a spec asks for (``mslr-web10k:Fold3`` -> ``Fold3``), else the card's first fold."""
    return _fold(parse_spec(spec)[1], card)


def _fold(option: str | None, card: Card) -> str:
    if option and option in card.folds:
        return option
    if option and card.folds and option not in card.variants:
        raise ConfigError(f"dataset {card.name!r} has no fold {option!r}; valid: "
                          f"{', '.join(card.folds)}")
    return card.folds[0] if card.folds else "Fold1"


def render_markdown(cards: dict[str, Card] | None = None) -> str:
    """The catalogue as a Markdown table (``datasets/catalogue.md``)."""
    cards = load_catalogue() if cards is None else cards
    lines = [
        "# Dataset catalogue",
        "",
        "Generated from the cards in `bench/data/cards/` by "
        "`ltrbench datasets list --format markdown`; do not edit by hand.",
        "",
        "| name | kind | size | download | archive sha256 | licence |",
        "|---|---|---|---|---|---|",
    ]
    for card in cards.values():
        variants = [card.with_variant(v) for v in card.variants] or [card]
        for c in variants:
            name = f"`{c.spec}`"
            if c.kind == "synthetic":
                where = "generated on first use" if c.loader == SHAPES_LOADER else "built in"
            elif c.downloadable:
                where = f"[{c.archive or 'files'}]({c.url or c.homepage})"
            else:
                where = f"manual ([homepage]({c.homepage}))"
            digest = c.archive_sha256 if c.archive_format not in ("none", "files") else "—"
            if digest not in (UNKNOWN, "—"):
                digest = f"`{digest[:16]}…`"
            lines.append(
                f"| {name} | {c.kind} | {_cell(c.size)} | {where} | {digest} | "
                f"{_cell(c.licence)} |"
            )
    lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _coerce(raw: dict[str, Any], *, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _SCALARS:
            want = _SCALARS[key]
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise ConfigError(f"{where}: {key} must be {want.__name__}, got {value!r}")
            out[key] = value
        elif key in _TABLES:
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                raise ConfigError(f"{where}: [{key}] must map strings to strings")
            out[key] = dict(value)
        elif key == "shape":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [shape] must be a table")
            out[key] = dict(value)
        elif key in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: {key} must be a list of strings")
            out[key] = tuple(value)
        else:
            valid = ", ".join([*_SCALARS, *_TABLES, *_LISTS, "variants", "shape"])
            raise ConfigError(f"{where}: unknown key {key!r}; valid: {valid}")
    return out


#: The loaders of each kind of card.
_KIND_LOADERS = {"letor": ("letor", "lightgbm"), "ratings": ("movielens",),
                 "synthetic": ("synthetic", SHAPES_LOADER)}


def _validate(card: Card, p: Path) -> None:
    where = f"{p}" + (f" [variants.{card.variant}]" if card.variant else "")
    check_card_paths(card, where)
    if card.archive_format not in ARCHIVE_FORMATS:
        raise ConfigError(f"{where}: archive_format {card.archive_format!r}; valid: "
                          f"{', '.join(ARCHIVE_FORMATS)}")
    digests = [card.archive_sha256, *card.files.values()]
    for d in digests:
        if d != UNKNOWN and (len(d) != 64 or any(ch not in "0123456789abcdef" for ch in d)):
            raise ConfigError(f"{where}: {d!r} is neither a sha256 hex digest nor 'unknown'")
    if card.archive_format == "files" and set(card.file_urls) - set(card.files):
        raise ConfigError(f"{where}: every [file_urls] entry needs a [files] entry")
    for split in card.splits:
        if split not in ("train", "vali", "test"):
            raise ConfigError(f"{where}: [splits] key {split!r}; valid: train, vali, test")
