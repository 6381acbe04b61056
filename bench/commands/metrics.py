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
import shutil
import sys

from bench.commands.text import examples, plain

_EPILOG = examples(
    "ltrbench metrics list --format markdown",
    "ltrbench evaluate --qrels qrels.txt --run run.txt --metrics ndcg_cut.5,10 P_5 'P(rel=2)@5'",
)


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


def cmd_list(args: argparse.Namespace) -> int:
    """Print the table of names (``--format``); exit status 0."""
    from bench.metrics.names_listing import listing_json, listing_markdown, listing_text

    if args.format == "json":
        print(listing_json())
    elif args.format == "markdown":
        from bench.data.csv_cells import spelled  # a document: never with escapes

        print(spelled(listing_markdown()), end="")
    else:  # a person reading a terminal: the table folds to its width
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print(listing_text(width), end="")
    return 0
