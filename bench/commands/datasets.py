"""``ltrbench datasets list | info NAME | fetch NAME [--url URL] | verify NAME``.

All take ``--data-dir`` (else ``$LTRBENCH_DATA_DIR``, else the user cache directory; folders
after the first, ``os.pathsep``-separated, are searched read only: :mod:`bench.datasets.fetch`). ``verify`` exits 1 when a dataset is absent or a
file is missing or differs from its card; ``fetch`` exits 2 on a download or digest error.
"""

from __future__ import annotations

import argparse
import json
import re

from bench.commands.text import examples
from bench.datasets.catalogue import Card, get_card, load_catalogue, render_markdown
from bench.datasets.fetch import data_dirs, fetch, find_dataset, verify


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "datasets", help="dataset catalogue: list, info, fetch, verify",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples("ltrbench datasets list", "ltrbench datasets info mslr-web30k",
                        "ltrbench datasets fetch ml-latest-small",
                        "ltrbench datasets verify ml-latest-small"),
    )
    inner = parser.add_subparsers(dest="datasets_command", metavar="ACTION", required=True)

    p = inner.add_parser("list", help="every catalogued dataset and whether it is present",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         epilog=examples("ltrbench datasets list --format markdown"))
    _data_dir(p)
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="markdown prints the table committed as datasets/catalogue.md")
    p.set_defaults(func=cmd_list)

    p = inner.add_parser("info", help="a dataset's card and where it is",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         epilog=examples("ltrbench datasets info istella:s --format json"))
    p.add_argument("name", help="catalogue name, optionally NAME:VARIANT (istella:s)")
    _data_dir(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_info)

    p = inner.add_parser("fetch", help="download, check sha256 and unpack into the data directory",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         epilog=examples("ltrbench datasets fetch ml-latest-small --data-dir ~/data"))
    p.add_argument("name")
    _data_dir(p)
    p.add_argument("--url", help="download from here instead (mirror, local path or file:// URL)")
    p.add_argument("--force", action="store_true", help="download again even when present")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_fetch)

    p = inner.add_parser("verify", help="check present files against the card's sha256",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         epilog=examples("ltrbench datasets verify ohsumed"))
    p.add_argument("name")
    _data_dir(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_verify)


def _data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", default=None,
                   help="data directory (default: $LTRBENCH_DATA_DIR, else the user cache dir)")


def _rows() -> list[Card]:
    out = []
    for card in load_catalogue().values():
        out.extend([card.with_variant(v) for v in card.variants] or [card])
    return out


def cmd_list(args: argparse.Namespace) -> int:
    if args.format == "markdown":
        print(render_markdown(), end="")
        return 0
    rows = []
    for card in _rows():
        where = find_dataset(card, data_dir=args.data_dir)
        present = "built in" if card.kind == "synthetic" else (str(where) if where else "absent")
        rows.append({"name": card.spec, "kind": card.kind, "size": card.size,
                     "licence": _short_licence(card), "present": present,
                     "download": "yes" if card.downloadable else "manual"})
    if args.format == "json":
        print(json.dumps({"data_dirs": [str(d) for d in data_dirs(args.data_dir)],
                          "datasets": rows}, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ltrbench datasets", show_lines=False)
    for col in ("name", "kind", "size", "licence", "present"):
        table.add_column(col, overflow="fold")
    for r in rows:
        status = r["present"] if r["present"] in ("absent", "built in") else "present"
        table.add_row(r["name"], r["kind"], _short_size(r["size"]), r["licence"], status,
                      style=None if status == "absent" else "green")
    console = Console()
    console.print(table)
    dirs = data_dirs(args.data_dir)
    console.print("'ltrbench datasets info NAME' shows the card and where the data is; "
                  "--format json lists the paths.")
    console.print(f"data directory: {dirs[0]}" + (
        f" (also searched: {', '.join(str(d) for d in dirs[1:])})" if len(dirs) > 1 else ""))
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    card = get_card(args.name)
    where = find_dataset(card, data_dir=args.data_dir)
    info = card.as_dict()
    info.pop("variants", None)
    info["variants"] = sorted(card.variants)
    info["present"] = str(where) if where else None
    if args.format == "json":
        print(json.dumps(info, indent=2))
        return 0
    print(f"{card.title} ({card.spec})")
    keys = ("kind", "loader", "size", "homepage", "url", "archive", "archive_sha256",
            "archive_size", "dir", "aliases", "folds", "variants", "licence",
            "redistributable", "citation", "hash_source", "notes")
    for k in keys:
        v = info.get(k)
        if v in ("", [], 0, None) and k != "redistributable":
            continue
        print(f"  {k}: {', '.join(v) if isinstance(v, list) else v}")
    if card.files:
        print("  files (sha256):")
        for rel, digest in card.files.items():
            print(f"    {rel}  {digest}")
    print(f"  present: {info['present'] or 'absent'}")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    folder = fetch(args.name, url=args.url, data_dir=args.data_dir, force=args.force,
                   progress=not args.no_progress)
    print(folder)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    report = verify(args.name, data_dir=args.data_dir)
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2))
        return 0 if report.ok else 1
    if report.folder is None:
        searched = ", ".join(str(d) for d in data_dirs(args.data_dir))
        print(f"{report.name}: absent (searched {searched})")
        return 1
    print(f"{report.name}: {report.folder}")
    for f in report.files:
        detail = ""
        if f.status == "mismatch":
            detail = f" (expected {f.expected}, got {f.actual})"
        elif f.status == "unverified":
            detail = f" (card has no digest; sha256 {f.actual})"
        print(f"  {f.status:<10} {f.path}{detail}")
    c = report.counts
    verdict = "OK" if report.ok else "FAILED"
    print(f"{verdict}: {c['ok']} ok, {c['mismatch']} mismatch, {c['missing']} missing, "
          f"{c['unverified']} without a known digest")
    return 0 if report.ok else 1


def _short_size(size: str) -> str:
    """The card's size without parentheses, up to the first ';'."""
    return re.sub(r"\s*\([^)]*\)", "", size).split(";")[0].strip()


def _short_licence(card: Card) -> str:
    text = re.sub(r"\s*\([^)]*\)", "", card.licence)
    first = re.split(r"[:;]|\.\s", text, maxsplit=1)[0].strip().rstrip(".")
    tag = "redistributable" if card.redistributable else "no redistribution"
    return f"{first} ({tag})"


