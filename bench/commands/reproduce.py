"""``ltrbench reproduce [results/leaderboard.md] [--run DIR]``: re-run recorded configs, compare every number.

For each table of the leaderboard (its JSON twin holds ``run_config`` / ``run_id``) whose data is
available, the config is run again and every number is compared: bit-identical when the
environment matches the original run's manifest, else within 1e-6 (``--tolerance`` overrides).
``--run DIR`` reproduces one run directory instead (a run of tune's best.toml too). A tuned
leaderboard (leaderboard-tuned-<dataset>.json, from report --tuned) re-runs both its runs, the
defaults and the tuned configs, and rebuilds the joined table. A fold table
(<out>/folds/<name>-folds12345.json or .md, from run --folds) re-runs every fold and rebuilds
its tables. Exit 0 when everything that ran matches,
1 with a diff otherwise.

JSON shape (``--format json``)::

    {"ok": bool, "runs": [{"source", "status": "match"|"mismatch"|"skipped", "reason", "config",
      "original_run", "new_run", "tolerance", "tolerance_reason", "compared", "n_differences",
      "differences": [{"file", "key", "column", "original", "reproduced", "abs_diff"}]}]}
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.text import ascii_float, examples, plain
from bench.data.outputs import check_output_dir
from bench.errors import ConfigError
from bench.runs.layout import RUN_WRITES
from bench.streams import verdict


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "reproduce",
        help="re-run the configs behind a leaderboard (or a run) and compare every number",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench reproduce",
            "ltrbench reproduce --run results/runs/synthetic-20261123T013838Z-1342836c --format json",
        ),
    )
    p.add_argument("leaderboard", nargs="?", default="results/leaderboard.md",
                   help="leaderboard or fold table, .md or .json (default: "
                   "results/leaderboard.md)")
    p.add_argument("--run", action="append", metavar="DIR", default=[],
                   help="reproduce this run directory (repeatable) instead of a leaderboard")
    p.add_argument("--tolerance", type=ascii_float, metavar="TOL",
                   help="absolute tolerance for every number (default: 0 in the same environment, "
                   "else 1e-6)")
    p.add_argument("--out", metavar="DIR",
                   help="keep the new runs under DIR/runs/ (default: a temporary folder, removed)")
    add_no_progress(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from bench.benchmark.reproduce import reproduce_run
    from bench.benchmark.reproduce_folds import reproduce_document

    progress = progress_wanted(args)
    if args.out is not None:
        from bench.datasets.sealed import SEALED_DATASETS, dataset_folders
        from bench.runs.naming import crosscheck_folders

        check_output_dir(args.out, option="--out", inputs=[
            ("leaderboard", None if args.run else args.leaderboard),
            *[("--run", d) for d in args.run], *dataset_folders(around=args.out, into=(
                "runs", *crosscheck_folders(*_datasets(args))))],
            writes=RUN_WRITES, into=("runs",), sealed=("--run", *SEALED_DATASETS))  # never into a run reproduced
    real = [os.path.realpath(d) for d in args.run]
    for i, path in enumerate(real):  # one run twice: trained and compared twice
        if path in real[:i]:
            raise ConfigError(f"--run {args.run[i]!r} is given twice (first as "
                              f"{args.run[real.index(path)]!r}): give each run directory once")
    if args.run:
        outcomes = [
            reproduce_run(Path(d), out_dir=args.out, tolerance=args.tolerance, progress=progress)
            for d in args.run
        ]
    else:
        outcomes = reproduce_document(
            args.leaderboard, out_dir=args.out, tolerance=args.tolerance, progress=progress
        )
    # nothing re-run (every table skipped: no data) is no reproduction: not ok, exit 1
    ok = all(o.status != "mismatch" for o in outcomes) and \
        any(o.status != "skipped" and o.reran for o in outcomes)
    verdict(0 if ok else 1)  # '| head -1' keeps it
    if args.format == "json":
        json.dump({"ok": ok, "runs": [o.as_dict() for o in outcomes]}, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0 if ok else 1
    for o in outcomes:
        head = f"{o.status.upper():9s} {o.source}"
        if o.status == "skipped":
            print(f"{head}: {o.reason}")
            continue
        if o.reran:
            print(f"{head}: {o.compared} numbers compared, {o.n_differences} differ "
                  f"(tolerance {o.tolerance:g}: {o.tolerance_reason})")
        else:
            print(f"{head}: {o.compared} cells compared with {o.tolerance_reason}, "
                  f"{o.n_differences} differ" + (f"; {o.reason}" if o.reason else ""))
        for d in o.differences[:20]:
            print(f"    {d['file']} {d['key']} {d['column']}: {d['original']} -> {d['reproduced']}"
                  + ("" if d["abs_diff"] is None else f" (|diff| {d['abs_diff']:.3g})"))
        if o.n_differences > 20:
            print(f"    ... and {o.n_differences - 20} more (--format json lists every one)")
    if not outcomes:
        print("no tables found")
    elif all(o.status == "skipped" or not o.reran for o in outcomes):
        print("nothing could be re-run (see the reasons above): not reproduced")
    return 0 if ok else 1


def _datasets(args: argparse.Namespace) -> list[str]:
    """The datasets whose cross-check ``<out>/<dataset>/`` the re-runs write, as known before
    any work: each ``--run``'s, else the leaderboard's tables' (its JSON, or the JSON twin of
    its Markdown; one that cannot be read is the reader's to name, later)."""
    from bench.data.jsonio import read_json_object
    from bench.errors import LtrbenchError
    from bench.runs.reader import run_dataset_names

    if args.run:
        return [n for d in args.run for n in run_dataset_names(d)]
    try:
        doc = read_json_object(Path(args.leaderboard).with_suffix(".json"), "a leaderboard")
    except (LtrbenchError, OSError):
        return []
    tables = doc.get("tables")
    found = [t.get("dataset") for t in tables if isinstance(t, dict)] \
        if isinstance(tables, list) else []
    return [d for d in (doc.get("dataset"), *found) if isinstance(d, str)]
