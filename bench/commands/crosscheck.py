"""``ltrbench crosscheck``: each library's built-in NDCG against the reference evaluator.

``ltrbench crosscheck --dataset NAME|PATH [--models ...] [--quick] [--run DIR] --format json|table``

Reuses ``--run DIR`` when given, else the most recent run of the dataset under ``<out>/runs``
(or ``--runs-dir``) that trained the requested models, else trains them first
(:func:`bench.benchmark.pipeline.run_benchmark`). Writes ``<out>/<dataset>/crosscheck.{md,json}``
and prints the JSON document (``--format json``, shape in :mod:`bench.crosscheck.result`) or the
Markdown report. Exit status 0 when every check agrees and every gap is explained, 1 otherwise,
2 on bad input: a ``--run`` that trained no LightGBM/XGBoost/CatBoost model has nothing to
cross-check (as ``--models random``), and a run being written now is refused.

``ltrbench crosscheck --evaluators [--qrels FILE --trec-run FILE | --data FILE --scores FILE]``:
every installed evaluation library (pytrec_eval, ir_measures and its providers, ranx,
scikit-learn, torchmetrics) on the same qrels and run (the built-in probe cases when no file is
given), compared per query with the ltrbench profile that claims to reproduce each measure; each
disagreement is named a convention (the profile field) or a defect of the tool (with the smallest
input that shows it). ``--tools`` picks libraries. Writes ``<out>/definitions/evaluators.{md,json}``
(:mod:`bench.crosscheck.evaluators`). Exit status 0 when no defect was found and no library
failed, 1 otherwise, 2 on bad input.

``ltrbench crosscheck --versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0``: which
profile reproduces each release's built-in ndcg@k / map@k (each release in its own cached
virtual environment, ``--cache-dir``; ``LIBRARY==installed`` uses the current interpreter).
Writes ``<out>/definitions/versions.{md,json}``, prints the Markdown (``--format table`` or
``markdown``) or the JSON; progress goes to stderr. Exit status 0 when every release ran and
every metric is reproduced by a profile, 1 otherwise, 2 on bad input. This is the command
``ltrbench crosscheck-versions`` (:mod:`bench.commands.versions`), kept under its old spelling.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench.commands import versions
from bench.commands.progress_option import add_no_progress, progress_lines, progress_wanted
from bench.commands.run_options import add_config_arguments, config_from_args
from bench.commands.text import examples, plain
from bench.commands.versions import document
from bench.metrics.families import PRIMARY_METRIC
from bench.runs.layout import LOCAL_RESULTS
from bench.streams import verdict


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "crosscheck",
        help="compare LightGBM/XGBoost/CatBoost built-in ndcg@k with the reference evaluator",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench crosscheck",
            "ltrbench crosscheck --dataset ml-latest-small --models lightgbm,catboost --quick",
            "ltrbench crosscheck --run results/runs/ohsumed-20261123T013851Z-188f9011",
            "ltrbench crosscheck --versions lightgbm==3.3.5,4.7.0 xgboost==1.7.6,2.1.4,3.2.0",
            "ltrbench crosscheck --evaluators --out results",
            "ltrbench crosscheck --evaluators --qrels qrels.txt --trec-run run.txt --tools ranx",
        ),
    )
    add_config_arguments(p)
    p.add_argument("--run", metavar="DIR", help="cross-check this run directory (no training)")
    p.add_argument("--runs-dir", metavar="DIR",
                   help="where to look for a run to reuse (default: <out>/runs)")
    p.add_argument("--out", default=LOCAL_RESULTS, metavar="DIR",
                   help="results folder: DIR/<dataset>/crosscheck.{md,json} (default: results/local)")
    p.add_argument("--metric", default=PRIMARY_METRIC,
                   help=f"metric to cross-check (default: {PRIMARY_METRIC})")
    p.add_argument("--retrain", action="store_true", help="train even if a matching run exists")
    add_no_progress(p)
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="table and markdown both print the Markdown report")
    p.add_argument("--versions", nargs="+", metavar="LIBRARY==V1,V2",
                   help="which profile each release of LightGBM/XGBoost matches, e.g. "
                   "xgboost==1.7.6,2.1.4 lightgbm==installed (no dataset, no training)")
    versions.add_cache_argument(p)
    e = p.add_argument_group("evaluation libraries (--evaluators)")
    e.add_argument("--evaluators", action="store_true",
                   help="check pytrec_eval, ir_measures, ranx, scikit-learn, torchmetrics per "
                   "query against ltrbench's profiles (no training)")
    e.add_argument("--qrels", metavar="FILE", help="TREC qrels ('qid iter docno rel')")
    e.add_argument("--trec-run", metavar="FILE", help="TREC run ('qid Q0 docno rank score tag')")
    e.add_argument("--data", metavar="FILE",
                   help="a LETOR/SVMlight file or LETOR Parquet split (with --scores)")
    e.add_argument("--scores", metavar="FILE", help="one score per row of --data")
    e.add_argument("--tools", metavar="LIST",
                   help="comma-separated libraries (default: every installed one)")
    p.set_defaults(func=main)


def _trainer(args: argparse.Namespace) -> Callable[[tuple[str, ...]], Path]:
    """How the cross-check trains a run when it has none: the run's options with ``models``."""

    def train(models: tuple[str, ...]) -> Path:
        from bench.benchmark.pipeline import run_benchmark

        config = replace(config_from_args(args, models=models), crosscheck=False)
        return run_benchmark(config, out_dir=args.out, progress=progress_wanted(args))

    return train


def main(args: argparse.Namespace) -> int:
    """Run ``ltrbench crosscheck``; ``--versions`` runs ``ltrbench crosscheck-versions``."""
    _refuse_mixed(args)
    if args.versions is not None:
        return versions.main(args)
    if args.evaluators:
        return evaluators_main(args)
    from bench.crosscheck.find import CrosscheckRequest, crosscheck_request
    from bench.crosscheck.render import render_markdown

    request = CrosscheckRequest(out=args.out, run=args.run, runs_dir=args.runs_dir,
                                dataset=args.dataset, models=args.models, metric=args.metric,
                                retrain=args.retrain)
    say = progress_lines(args)
    outcome = crosscheck_request(request, train=_trainer(args), say=say)
    result, files = outcome.result, outcome.files
    verdict(0 if result.ok else 1)  # '| head -1' keeps it
    if args.format == "json":
        sys.stdout.write(result.to_json())
    else:
        sys.stdout.write(document(args, render_markdown(result)))
        print(f"wrote {files['md']} and {files['json']}")
    return 0 if result.ok else 1


_EVALUATOR_FILES = ("qrels", "trec_run", "data", "scores", "tools")


def _refuse_mixed(args: argparse.Namespace) -> None:
    """``--evaluators`` takes no dataset, run or release; its file options need it."""
    from bench.errors import ConfigError

    given = [f"--{d.replace('_', '-')}" for d in _EVALUATOR_FILES
             if getattr(args, d, None) is not None]
    if not args.evaluators:
        if given:
            raise ConfigError(f"{', '.join(given)} belong to --evaluators; add --evaluators")
        return
    if args.versions is not None:
        raise ConfigError("--evaluators and --versions are two checks: run them one at a time")
    others = [f"--{d.replace('_', '-')}" for d in ("config", "dataset", "models", "run",
                                                   "runs_dir", "retrain", "quick", "cache_dir")
              if getattr(args, d, None) not in (None, False)]
    if getattr(args, "metric", PRIMARY_METRIC) != PRIMARY_METRIC:
        others.append("--metric")
    if others:
        raise ConfigError(f"--evaluators checks evaluation libraries on qrels and a run (or the "
                          f"built-in cases): it does not use {', '.join(others)}")


def evaluators_main(args: argparse.Namespace) -> int:
    """``ltrbench crosscheck --evaluators``: the report, its files, the exit status."""
    from bench.crosscheck.evaluator_render import (
        evaluators_json,
        render_evaluators,
        write_evaluators,
    )
    from bench.crosscheck.evaluators import crosscheck_evaluators, letor_input, trec_input
    from bench.data.outputs import check_output_dir, check_output_file
    from bench.errors import ConfigError, refuse_empty_items

    pairs = {"--qrels": args.qrels, "--trec-run": args.trec_run, "--data": args.data,
             "--scores": args.scores}
    if (args.qrels is None) != (args.trec_run is None) or (args.data is None) != (args.scores is None):
        partner = {"--qrels": "--trec-run", "--trec-run": "--qrels", "--data": "--scores",
                   "--scores": "--data"}
        missing = [partner[k] for k, v in pairs.items() if v is not None and pairs[partner[k]] is None]
        raise ConfigError(f"--qrels goes with --trec-run, --data with --scores: missing "
                          f"{', '.join(missing)}")
    if args.qrels is not None and args.data is not None:
        raise ConfigError("give --qrels/--trec-run or --data/--scores, not both")
    tools = None
    if args.tools is not None:
        fields = args.tools.split(",")
        # "ranx,,sklearn": a name left out is refused, never skipped
        refuse_empty_items(fields, args.tools, "name", "--tools", blank_ok=False)
        tools = [t.strip() for t in fields if t.strip()]
    inputs = None
    if args.qrels is not None:
        inputs = [trec_input(args.qrels, args.trec_run)]
    elif args.data is not None:
        inputs = [letor_input(args.data, args.scores)]
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    given = [(k, v) for k, v in pairs.items() if v is not None]
    check_output_dir(args.out, option="--out", inputs=[
        *given, *dataset_folders(around=args.out, into=("definitions",))],
        writes=("definitions", "definitions/*"), into=("definitions",), sealed=SEALED_DATASETS)
    for name in ("evaluators.md", "evaluators.json"):  # refused before any work, not after it
        target = Path(args.out) / "definitions" / name
        if target.is_dir() and not target.is_symlink():
            raise ConfigError(f"--out {args.out!r}: {target} is a folder, where the command "
                              "writes a file of its table: move it away or choose another --out")
        check_output_file(target, option="--out", inputs=given)
    result = crosscheck_evaluators(inputs, only=tools,
                                   progress=progress_lines(args))
    files = write_evaluators(result, args.out)
    verdict(0 if result.ok else 1)
    if args.format == "json":
        sys.stdout.write(evaluators_json(result))
    else:
        sys.stdout.write(document(args, render_evaluators(result)))
        print(f"wrote {files['md']} and {files['json']}")
    return 0 if result.ok else 1
