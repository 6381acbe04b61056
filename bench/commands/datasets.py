"""``ltrbench datasets list | info NAME | fetch NAME [--url URL] | verify NAME``.

All take ``--data-dir`` (else ``$LTRBENCH_DATA_DIR``, else the user cache directory; folders
after the first, ``os.pathsep``-separated, are searched read only: :mod:`bench.datasets.fetch`). ``verify`` exits 1 when a dataset is absent or a
file is missing or differs from its card; ``fetch`` exits 2 on a download or digest error.
"""

from __future__ import annotations

import argparse
import json

from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.text import examples, terminal_line


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
    add_no_progress(p)
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


def cmd_list(args: argparse.Namespace) -> int:
    from bench.datasets.listing import catalogue_json, print_catalogue

    if args.format == "markdown":
        from bench.data.csv_cells import spelled  # catalogue.md: never with escapes
        from bench.datasets.catalogue import render_markdown

        print(spelled(render_markdown()), end="")
    elif args.format == "json":
        print(catalogue_json(args.data_dir))
    else:
        print_catalogue(args.data_dir)
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from bench.datasets.listing import card_info, card_text

    if args.format == "json":
        print(json.dumps(card_info(args.name, args.data_dir), indent=2))
    else:
        print(card_text(args.name, args.data_dir), end="")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from bench.datasets.fetch import fetch

    folder = fetch(args.name, url=args.url, data_dir=args.data_dir, force=args.force,
                   progress=progress_wanted(args))
    print(folder)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from bench.datasets.fetch import data_dirs, verify
    from bench.streams import verdict

    report = verify(args.name, data_dir=args.data_dir)  # digests and the card's counts
    absent = report.folder is None and args.format != "json"  # the text's own rule
    status = verdict(0 if report.ok and not absent else 1)  # '| head -1' keeps it
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2))
        return status
    if report.folder is None:
        searched = ", ".join(str(d) for d in data_dirs(args.data_dir))
        print(f"{report.name}: absent (searched {searched})")
        return status
    print(f"{report.name}: {report.folder}")
    for f in report.files:
        detail = ""
        if f.status == "mismatch":
            detail = f" (expected {f.expected}, got {f.actual})"
        elif f.status == "unverified":
            detail = f" (card has no digest; sha256 {f.actual})"
        elif f.status == "foreign":
            detail = " (not a file of the card, which vouches for its files: a load under " \
                "its name refuses it; move it out of the folder)"
        elif f.status == "missing":
            detail = f" ({f.stands})" if f.stands else ""
        if f.found is not None:
            detail += f" (read as {f.found}: the name differs in letter case)"
        print(f"  {f.status:<10} {f.path}{detail}")
    if report.card_counts is not None:
        print(f"  {'counts':<10} {terminal_line(report.card_counts)}")
    c = report.counts
    shown = "OK" if report.ok else "FAILED"
    foreign = f", {c['foreign']} not in the card" if c.get("foreign") else ""
    print(f"{shown}: {c['ok']} ok, {c['mismatch']} mismatch, {c['missing']} missing, "
          f"{c['unverified']} without a known digest{foreign}")
    return status

