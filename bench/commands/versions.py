"""``ltrbench crosscheck-versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0``: which
profile reproduces each release's built-in ndcg@k / map@k.

Each release runs in its own cached virtual environment (``--cache-dir``; ``LIBRARY==installed``
uses the current interpreter). Writes ``<out>/definitions/versions.{md,json}``, prints the
Markdown (``--format table`` or ``markdown``) or the JSON; progress goes to stderr. Exit status 0
when every release ran and every metric is reproduced by a profile, 1 otherwise, 2 on bad input.
The old spelling, ``ltrbench crosscheck --versions ...``, runs this command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.commands.progress_option import add_no_progress, progress_lines
from bench.commands.text import examples, plain

#: Where the results go unless ``--out`` says (``bench.runs.layout.LOCAL_RESULTS``; a test
#: checks that the two agree, so that ``--help`` imports nothing below the commands).
LOCAL_RESULTS = "results/local"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``crosscheck-versions`` sub-command."""
    p = sub.add_parser(
        "crosscheck-versions",
        help="which profile reproduces each release of LightGBM/XGBoost (isolated environments)",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench crosscheck-versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0",
            "ltrbench crosscheck-versions xgboost==installed --format json",
        ),
    )
    p.add_argument("versions", nargs="+", metavar="LIBRARY==V1,V2",
                   help="which profile each release of LightGBM/XGBoost matches, e.g. "
                   "xgboost==1.7.6,2.1.4 lightgbm==installed (no dataset, no training)")
    add_output_arguments(p)
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="table and markdown both print the Markdown report")
    add_no_progress(p)
    p.set_defaults(func=main)


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    """``--out`` and ``--cache-dir`` (``crosscheck`` declares its own ``--out``)."""
    p.add_argument("--out", default=LOCAL_RESULTS, metavar="DIR",
                   help="results folder: DIR/definitions/versions.{md,json} (default: "
                   "results/local)")
    add_cache_argument(p, of="the releases")


def add_cache_argument(p: argparse.ArgumentParser, of: str = "--versions") -> None:
    """``--cache-dir``: where the isolated environments (of ``of``) are kept."""
    p.add_argument("--cache-dir", metavar="DIR",
                   help=f"virtual environments of {of} (default: the user cache dir)")


#: Options of ``ltrbench crosscheck`` (a dataset or a run) that the version check does not use.
_RUN_OPTIONS = ("config", "dataset", "models", "seeds", "metrics", "profile", "quick", "n_trees",
                "threads", "data_dir", "no_cache", "run", "runs_dir", "retrain")


def _refuse_run_options(args: argparse.Namespace) -> None:
    """``crosscheck --versions ... --dataset X`` (or ``--run``, ``--metric`` ...): those options
    were ignored without a word; the version check takes no dataset and no run."""
    from bench.errors import ConfigError
    from bench.metrics.families import PRIMARY_METRIC

    given = [f"--{d.replace('_', '-')}" for d in _RUN_OPTIONS
             if getattr(args, d, None) not in (None, False)]
    if getattr(args, "metric", PRIMARY_METRIC) != PRIMARY_METRIC:
        given.append("--metric")
    if given:
        raise ConfigError(f"--versions checks library releases on built-in cases (no dataset, "
                          f"no run): it does not use {', '.join(given)}; run 'ltrbench crosscheck' "
                          "without --versions to cross-check a dataset or a run")


def main(args: argparse.Namespace) -> int:
    """Run ``ltrbench crosscheck-versions`` (and ``crosscheck --versions``); the exit status."""
    from bench.crosscheck.version_render import render_versions, versions_json, write_versions
    from bench.crosscheck.versions import parse_version_specs, run_versions
    from bench.data.outputs import check_output_dir

    _refuse_run_options(args)
    own = getattr(args, "command", None) == "crosscheck-versions"  # its releases are positional
    specs = parse_version_specs(args.versions, name="LIBRARY==V1,V2" if own else "--versions")
    if args.cache_dir is not None:
        from bench.errors import ConfigError

        cache = Path(args.cache_dir)
        if not str(args.cache_dir).strip() or (cache.exists() and not cache.is_dir()):
            raise ConfigError(f"--cache-dir {args.cache_dir!r}: expected a folder for the "
                              "isolated environments (created when missing)")
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    if args.cache_dir is not None:  # isolated environments never among a dataset's files
        check_output_dir(args.cache_dir, option="--cache-dir", sealed=SEALED_DATASETS,
                         inputs=dataset_folders(around=args.cache_dir))
    check_output_dir(args.out, option="--out", inputs=[
        ("--cache-dir", args.cache_dir), *dataset_folders(around=args.out, into=("definitions",))],
        writes=("definitions", "definitions/*"), into=("definitions",), sealed=SEALED_DATASETS)
    result = run_versions(specs, cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                          progress=progress_lines(args))
    files = write_versions(result, args.out)
    from bench.streams import verdict

    verdict(0 if result.ok else 1)  # '| head' keeps it
    if args.format == "json":
        sys.stdout.write(versions_json(result))
    else:
        sys.stdout.write(document(args, render_versions(result)))
        print(f"wrote {files['md']} and {files['json']}")
    return 0 if result.ok else 1


def document(args: argparse.Namespace, text: str) -> str:
    """``text`` as printed for ``--format``: under ``markdown`` a document for a file or another
    program, refused where standard output's encoding cannot write it (an escape would change
    the text: :func:`bench.data.csv_cells.spelled`); under ``table`` for a person, whose escapes
    the streams write (``crosscheck``, ``crosscheck --evaluators``, ``crosscheck-versions``)."""
    if args.format != "markdown":
        return text
    from bench.data.csv_cells import spelled

    return spelled(text)

