"""``ltrbench metrics list``: every metric name ltrbench accepts, in each grammar, and its profile.

Three grammars name a metric: ltrbench's (``ndcg@10``, computed under the profile of the call),
trec_eval's (``ndcg_cut_10``, under the ``trec_eval`` profile) and ir_measures'
(``P(rel=2)@5``, under trec_eval's conventions with the parameters as profile overrides);
``PROFILE:NAME`` computes any name under a named profile. A name two grammars read is the first
one's, in that order (see :mod:`bench.metrics.names`). The listing is generated from the
grammar's own tables, so every name it prints parses.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from bench.commands.text import examples, plain
from bench.metrics.names import describe_names, refused_names

_EPILOG = examples(
    "ltrbench metrics list --format markdown",
    "ltrbench evaluate --qrels qrels.txt --run run.txt --metrics ndcg_cut.5,10 P_5 'P(rel=2)@5'",
)
_COLUMNS = ("family", "grammar", "spelling", "example", "profile", "meaning")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``metrics`` sub-command."""
    parser = sub.add_parser("metrics", help="metric names: every accepted spelling and its profile",
                            description=plain(__doc__.split("\n\n")[0]) if __doc__ else None,
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    inner = parser.add_subparsers(dest="metrics_command", metavar="ACTION", required=True)
    p = inner.add_parser(
        "list", help="every accepted metric name, per grammar (ltrbench, trec_eval, ir_measures)",
        description=plain(__doc__), epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.set_defaults(func=cmd_list)


def folded_table(rows: list[dict[str, str]], width: int) -> str:
    """The listing as a table ``width`` characters wide at most (without the example column):
    long cells fold onto further lines of their column, nothing is cut."""
    import io

    from rich.console import Console
    from rich.table import Table

    shown = [c for c in _COLUMNS if c != "example"]  # the spelling already shows the pattern
    table = Table(box=None, pad_edge=False, show_edge=False)
    for c in shown:
        short = c in ("family", "grammar", "profile")
        table.add_column(c, overflow="fold", min_width=11 if short else None,
                         ratio=None if short else (2 if c == "meaning" else 1))
    for r in rows:
        table.add_row(*(r[c] for c in shown))
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, highlight=False).print(table)
    return out.getvalue()


def cmd_list(args: argparse.Namespace) -> int:
    """Print the table of names (``--format``); exit status 0."""
    rows = describe_names()
    refused = refused_names()
    if args.format == "json":
        print(json.dumps({"names": rows, "not_computed": refused}, indent=2))
        return 0
    if args.format == "markdown":
        print("| " + " | ".join(_COLUMNS) + " |")
        print("|" + "---|" * len(_COLUMNS))
        for r in rows:
            cells = [f"`{r[c]}`" if c in ("spelling", "example") else r[c] for c in _COLUMNS]
            print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        print()
        for tool, names in refused.items():
            print(f"Not computed ({tool}): {', '.join(f'`{n}`' for n in names)}")
        return 0
    if sys.stdout.isatty():  # a person reading: the table folds to the terminal's width
        print(folded_table(rows, shutil.get_terminal_size().columns), end="")
    else:  # a script or a file: one line per name, columns aligned
        widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in _COLUMNS[:-1]}
        print("  ".join(c.ljust(widths[c]) for c in _COLUMNS[:-1]) + "  meaning")
        for r in rows:
            print("  ".join(r[c].ljust(widths[c]) for c in _COLUMNS[:-1]) + "  " + r["meaning"])
    print()
    print("profile \"the call's\": evaluate(..., profile=...) / --profile (evaluate_trec and "
          "--qrels/--run: trec_eval). PROFILE:NAME picks one for any name.")
    print("A trec_eval or ir_measures name keeps its tool's profile unless a profile is given; "
          "then it takes the given profile when that is its tool's (trec_eval names: trec_eval, "
          "trec_eval-c; ir_measures names: trec_eval-c) and is refused otherwise. Results are "
          "keyed by the names as written and name each metric's profile.")
    for tool, names in refused.items():
        print(f"not computed ({tool}): {', '.join(names)}")
    return 0
