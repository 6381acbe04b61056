"""The dataset catalogue as a listing: a table, JSON, or a card's text with where it is.

What ``ltrbench datasets list`` and ``info`` print (moved here from
``bench/commands/datasets.py``: the command parses and prints; the catalogue's views are the
catalogue's). The Markdown table committed as ``datasets/catalogue.md`` is
:func:`bench.datasets.catalogue.render_markdown`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.data.folder_names import path_ignoring_case
from bench.datasets.catalogue import Card, get_card, load_catalogue
from bench.datasets.locations import data_dirs, find_dataset


def catalogue_rows(data_dir: str | None) -> list[dict[str, str | bool]]:
    """One row per dataset (and per variant): name, kind, size, licence, where it is, whether
    that folder holds any of the card's files (``complete``: an empty or unfinished copy is
    not, nor is an absent dataset, which was listed ``"complete": true``; a built-in generator
    is), whether it can be downloaded."""
    rows: list[dict[str, str | bool]] = []
    for card in _cards():
        where = find_dataset(card, data_dir=data_dir)
        present = "built in" if card.kind == "synthetic" else (str(where) if where else "absent")
        rows.append({"name": card.spec, "kind": card.kind, "size": card.size,
                     "licence": _short_licence(card), "present": present,
                     "complete": card.kind == "synthetic" or (
                         where is not None and not _incomplete(card, where)),
                     "download": "yes" if card.downloadable else "manual"})
    return rows


def catalogue_json(data_dir: str | None) -> str:
    """``{"data_dirs": [...], "datasets": [row, ...]}``."""
    return json.dumps({"data_dirs": [str(d) for d in data_dirs(data_dir)],
                       "datasets": catalogue_rows(data_dir)}, indent=2)


def print_catalogue(data_dir: str | None) -> None:
    """The catalogue as a terminal table (present datasets in green), then the data directory."""
    from rich.table import Table

    from bench.streams import whole_word_console

    table = Table(title="ltrbench datasets", show_lines=False)
    for col in ("name", "kind", "size", "licence", "present"):
        table.add_column(col, overflow="fold")
    for r in catalogue_rows(data_dir):
        status = str(r["present"]) if r["present"] in ("absent", "built in") else \
            "present" if r["complete"] else "incomplete (see info)"
        table.add_row(str(r["name"]), str(r["kind"]), _short_size(str(r["size"])),
                      str(r["licence"]), status, style=None if status == "absent" else
                      "green" if r["complete"] else "yellow")
    console = whole_word_console(table)
    console.print(table)
    dirs = data_dirs(data_dir)
    console.print("'ltrbench datasets info NAME' shows the card and where the data is; "
                  "--format json lists the paths.")
    console.print(f"data directory: {dirs[0]}" + (
        f" (also searched: {', '.join(str(d) for d in dirs[1:])})" if len(dirs) > 1 else ""))


def card_info(name: str, data_dir: str | None) -> dict[str, object]:
    """The card of ``name`` as a dictionary, its variants sorted and ``present``: where it is
    (``None`` when absent)."""
    return _info(get_card(name), data_dir)


def _info(card: Card, data_dir: str | None) -> dict[str, object]:
    where = find_dataset(card, data_dir=data_dir)
    info = card.as_dict()
    info.pop("variants", None)
    info["variants"] = sorted(card.variants)
    info["present"] = str(where) if where else None
    info["incomplete"] = _incomplete(card, where) if where else None
    return info


def _incomplete(card: Card, where: Path) -> str | None:
    """Why the folder ``where`` found for ``card`` is not the dataset when it holds none of the
    card's files (an empty or unfinished copy, another variant's files), else ``None``."""
    if not card.files or any(path_ignoring_case(where, rel) for rel in card.files):
        return None
    names = list(card.files)
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"it holds none of the card's files ({shown})"


def card_text(name: str, data_dir: str | None) -> str:
    """The card of ``name`` in words: its fields, its files' digests, where it is."""
    card = get_card(name)  # resolved once, for the title and the fields
    info = _info(card, data_dir)
    lines = [f"{card.title} ({card.spec})"]
    keys = ("kind", "loader", "size", "homepage", "url", "archive", "archive_sha256",
            "archive_size", "dir", "aliases", "folds", "variants", "licence",
            "redistributable", "citation", "hash_source", "notes")
    for k in keys:
        v = info.get(k)
        if v in ("", [], 0, None) and k != "redistributable":
            continue
        lines.append(f"  {k}: {', '.join(v) if isinstance(v, list) else v}")
    if card.files:
        lines.append("  files (sha256):")
        lines += [f"    {rel}  {digest}" for rel, digest in card.files.items()]
    why = f" (incomplete: {info['incomplete']})" if info["incomplete"] else ""
    lines.append(f"  present: {info['present'] or 'absent'}{why}")
    return "\n".join(lines) + "\n"


def _cards() -> list[Card]:
    out = []
    for card in load_catalogue().values():
        out.extend([card.with_variant(v) for v in card.variants] or [card])
    return out


def _short_size(size: str) -> str:
    """The card's size without parentheses, up to the first ';'."""
    return re.sub(r"\s*\([^)]*\)", "", size).split(";")[0].strip()


def _short_licence(card: Card) -> str:
    text = re.sub(r"\s*\([^)]*\)", "", card.licence)
    first = re.split(r"[:;]|\.\s", text, maxsplit=1)[0].strip().rstrip(".")
    tag = "redistributable" if card.redistributable else "no redistribution"
    return f"{first} ({tag})"


