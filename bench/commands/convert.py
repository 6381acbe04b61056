"""``ltrbench convert``: a ratings file -> train/vali/test LETOR files (SVMlight + Parquet).

Examples::

    ltrbench convert --ratings ~/data/ml-latest-small --out data/mls
    ltrbench convert --ratings ratings.csv --layout csv --user userId --item movieId \\
        --rating rating --timestamp timestamp --split random --target-size 0.1 --out data/x
    ltrbench convert --ratings synthetic --out data/synthetic

The conversion is :func:`bench.adapters.ratings_to_letor` (see ``bench/adapters`` for the
split, candidate, label and feature rules); the summary printed at the end is also written to
``OUT/summary.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench.adapters.config import (
    DEFAULT_FEATURE_GROUPS,
    FEATURE_GROUPS,
    NEGATIVE_SAMPLING,
    SPLITS,
    AdapterConfig,
)
from bench.commands.progress_option import add_no_progress, progress_wanted
from bench.commands.text import ascii_float, ascii_int, examples
from bench.data.outputs import check_output_dir
from bench.engines import (
    DEFAULT_ENGINE,
    ENGINES,
    ClusterOptions,
    Engine,
    RatingColumns,
    engine_names,
    get_engine,
)
from bench.errors import ConfigError

if TYPE_CHECKING:
    from bench.datasets.ratings_source import RatingsSource

FORMATS = ("auto", "ml-100k", "ml-1m", "ml-10m", "movielens-csv", "csv")
LABELS = ("graded", "liked", "halfstar", "binary", "rated")
#: Endings of a file name, refused for --out (a folder): ``--out train.parquet`` is a mistake.
FILE_SUFFIXES = (".parquet", ".txt", ".csv", ".tsv", ".json", ".svmlight", ".libsvm", ".gz")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "convert",
        help="ratings (MovieLens, CSV/Parquet, or synthetic) -> LETOR train/vali/test files",
        description="Convert user-item ratings to query-grouped LETOR data without leakage: "
        "features from history only, sampled never-rated negatives, documented labels.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples(
            "ltrbench convert --ratings ~/data/ml-latest-small --out data/mls",
            "ltrbench convert --ratings ratings.csv --layout csv --user userId --item movieId "
            "--rating rating --timestamp timestamp --split random --out data/x",
            "ltrbench convert --ratings synthetic --out data/synthetic",
        ),
    )
    p.add_argument("--ratings", required=True,
                   help="MovieLens folder / ratings file, a CSV/TSV/Parquet table, or "
                        "'synthetic' for the embedded generator")
    p.add_argument("--layout", default=None, choices=FORMATS,
                   help="input layout (default: the MovieLens layout detected from the files)")
    p.add_argument("--format", dest="old_layout", help=argparse.SUPPRESS)  # removed: see run()
    p.add_argument("--user", help="csv: user column (name, or 0-based position without header)")
    p.add_argument("--item", help="csv: item column")
    p.add_argument("--rating", help="csv: rating column (omit for implicit feedback)")
    p.add_argument("--timestamp", help="csv: timestamp column (omit: all 0)")
    p.add_argument("--sep", type=separator,
                   help="csv: field separator, literal text ('\\t': a tab; default: from "
                        "extension / first line)")
    p.add_argument("--duplicates", default="error", choices=("error", "last", "mean"),
                   help="csv: what to do with a repeated (user, item) pair (default: error)")
    d = AdapterConfig()
    p.add_argument("--split", default=d.split, choices=SPLITS,
                   help=f"how targets are chosen (default: {d.split})")
    p.add_argument("--target-size", type=ascii_float, default=d.target_size,
                   help="ratings per user per target window: a count >= 1 or a fraction < 1 "
                        f"(default: {d.target_size})")
    p.add_argument("--min-history", type=ascii_int, default=d.min_history,
                   help=f"history ratings a user needs to become a query (default: {d.min_history})")
    p.add_argument("--time-cuts", help="time-cut: three Unix timestamps c1,c2,c3 in seconds "
                                       "(default: the 0.7/0.8/0.9 timestamp quantiles)")
    p.add_argument("--folds", type=ascii_int, default=d.n_folds, help="kfold: number of user folds")
    p.add_argument("--fold", type=ascii_int, default=d.fold, help="kfold: the test fold")
    p.add_argument("--negatives", type=ascii_int, default=d.negatives,
                   help=f"sampled never-rated items per query and partition, one pool per user dealt "
                   f"disjointly to the partitions (default: {d.negatives})")
    p.add_argument("--negative-sampling", default=d.negative_sampling, choices=NEGATIVE_SAMPLING)
    p.add_argument("--labels", default=d.labels, choices=LABELS,
                   help=f"rating -> grade mapping (default: {d.labels}; see bench.adapters.labels)")
    p.add_argument("--binary-threshold", type=ascii_float, default=d.binary_threshold)
    p.add_argument("--features", default=",".join(DEFAULT_FEATURE_GROUPS),
                   help=f"comma-separated feature groups, or 'all' ({', '.join(FEATURE_GROUPS)})")
    p.add_argument("--svd-factors", type=ascii_int, default=d.svd_factors)
    p.add_argument("--similarity-history", type=ascii_int, default=d.similarity_history)
    p.add_argument("--seed", type=ascii_int, default=d.seed)
    p.add_argument("--synthetic-users", type=ascii_int, default=600)
    p.add_argument("--synthetic-items", type=ascii_int, default=9000)
    p.add_argument("--synthetic-ratings", type=ascii_int, default=100_000)
    p.add_argument("--no-parquet", action="store_true", help="write SVMlight files only")
    p.add_argument("--no-svmlight", action="store_true", help="write Parquet files only")
    p.add_argument("--out", required=True, help="output folder")
    add_no_progress(p)
    p.add_argument("--engine", default=DEFAULT_ENGINE, choices=engine_names(),
                   help="local: in this process; dask: on a Dask cluster, for ratings larger "
                        "than memory (writes OUT/<partition>/part-*.parquet shards of whole "
                        "queries; see bench.adapters.distributed)")
    p.add_argument("--scheduler", help="dask: address of an existing scheduler "
                                       "(default: a local cluster on 127.0.0.1)")
    p.add_argument("--workers", type=ascii_int, default=None,
                   help="dask, no --scheduler: local worker processes (2)")
    p.add_argument("--memory-limit", default=None,
                   help="dask: memory per local worker, e.g. 2GB (default: the machine's "
                        "memory divided among the workers); beyond it workers spill to disk")
    p.add_argument("--rows-per-block", type=ascii_int, default=None,
                   help="dask: ratings per block of whole users, and about the candidate rows "
                        "per output shard (2000000)")
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> AdapterConfig:
    """The :class:`AdapterConfig` the options describe."""
    groups = (FEATURE_GROUPS if args.features.strip() == "all"
              else tuple(g.strip() for g in args.features.split(",") if g.strip()))
    cuts = None
    if args.time_cuts:
        try:  # ascii_int: int() reads '１０００', '1_000', '\xa01'
            cuts = tuple(ascii_int(c) for c in args.time_cuts.split(","))
        except argparse.ArgumentTypeError:
            raise ConfigError(f"--time-cuts {args.time_cuts!r}: expected three integers "
                              "c1,c2,c3, Unix seconds (as the ratings' timestamps; a date "
                              "is not read: date -u -d 2015-01-01 +%s gives its seconds), "
                              "written in ASCII digits (no '_', full-width digits or no-break "
                              "spaces)") from None
        if len(cuts) != 3:
            raise ConfigError(f"--time-cuts {args.time_cuts!r}: expected three integers c1,c2,c3 "
                              "(Unix seconds)")
    size: float = args.target_size
    if size >= 1 and float(size).is_integer():
        size = int(size)
    try:
        config = AdapterConfig(
            split=args.split, target_size=size, min_history=args.min_history,
            time_cuts=cuts,  # type: ignore[arg-type]
            n_folds=args.folds, fold=args.fold, negatives=args.negatives,
            negative_sampling=args.negative_sampling, labels=args.labels,
            binary_threshold=args.binary_threshold, feature_groups=tuple(groups),
            svd_factors=args.svd_factors, similarity_history=args.similarity_history,
            seed=args.seed,
        )
    except ConfigError as exc:  # the config's field (typed: exc.key) named by the option typed
        if exc.key is None:
            raise
        raise exc.renamed(_OPTION_OF.get(exc.key, "--" + exc.key.replace("_", "-"))) from exc
    _refuse_unused(config)
    return config


def _refuse_unused(config: AdapterConfig) -> None:
    """Refuse an option that the chosen features or negatives do not use: ``--svd-factors 8``
    with ``--features user,item`` (no SVD is fitted), ``--similarity-history`` without the
    similarity group, ``--negative-sampling`` with ``--negatives 0``; each was dropped without a
    word. (A config built in Python keeps such values: a template varied by ``replace``.)"""
    d, groups = AdapterConfig.__dataclass_fields__, set(config.feature_groups)
    features = f"--features {','.join(config.feature_groups)}"
    unused = (
        ("svd_factors", f"sizes the SVDs of the svd and similarity feature groups; {features} "
         "fits neither", not groups & {"svd", "similarity"}, "add svd to --features"),
        ("similarity_history", f"applies to the similarity feature group; {features} lacks it",
         "similarity" not in groups, "add similarity to --features"),
        ("negative_sampling", "chooses how negatives are drawn; --negatives 0 draws none",
         config.negatives == 0, "give --negatives N"))
    for key, what, idle, fix in unused:
        if idle and getattr(config, key) != d[key].default:
            raise ConfigError(f"--{key.replace('_', '-')} {getattr(config, key)} {what}: it "
                              f"would be ignored; leave it out or {fix}")


def separator(text: str) -> str:
    """``--sep`` as the reader takes it: literal text, except the two characters ``\\t`` that a
    shell passes for ``'\\t'``, read as a tab (as xsv and Miller read them; pandas would read
    them as the regular expression of a tab, while the header check splits literally)."""
    return "\t" if text == "\\t" else text


#: An :class:`AdapterConfig` field whose option is not its name with dashes.
_OPTION_OF = {"n_folds": "--folds", "feature_groups": "--features"}


def source_from_args(args: argparse.Namespace) -> RatingsSource:
    """The ratings input ``--ratings`` / ``--layout`` and the column options name."""
    from bench.datasets.ratings_source import RatingsSource

    return RatingsSource(
        ratings=args.ratings, layout=args.layout or "auto", user=args.user, item=args.item,
        rating=args.rating, timestamp=args.timestamp, sep=args.sep, duplicates=args.duplicates,
        seed=args.seed,
        synthetic=(args.synthetic_users, args.synthetic_items, args.synthetic_ratings))


def converted_files() -> tuple[str, ...]:
    """What a conversion writes, replaces or removes in its output folder: the files of a
    single-process conversion (:data:`bench.adapters.convert.OWNED_FILES`), the shard folders of
    a Dask conversion and their temporary ``.<partition>.partial`` folders
    (:mod:`bench.adapters.distributed`), the temporary sets of :func:`replace_file_set`."""
    from bench.adapters.convert import OWNED_FILES
    from bench.adapters.splits import PARTITIONS

    return (*OWNED_FILES, *PARTITIONS, *(f".{p}.partial" for p in PARTITIONS), ".set-*.tmp")


def _refuse_ignored(args: argparse.Namespace) -> None:
    """Options the chosen engine would ignore are refused, not dropped: the Dask options on the
    local engine; local-cluster options (``--workers``, ``--memory-limit``) beside
    ``--scheduler`` (that cluster's own workers run). Then the Dask defaults are filled in."""
    dask_only = (("--scheduler", args.scheduler), ("--workers", args.workers),
                 ("--memory-limit", args.memory_limit), ("--rows-per-block", args.rows_per_block))
    if not get_engine(args.engine).on_cluster:
        given = [o for o, v in dask_only if v is not None]
        if given:
            on_cluster = [e for e in ENGINES.values() if e.on_cluster]
            raise ConfigError(f"{', '.join(given)}: {' / '.join(e.title for e in on_cluster)} "
                              f"option(s), ignored by the {args.engine} engine; add --engine "
                              f"{' / '.join(e.name for e in on_cluster)} or leave them out")
    elif args.scheduler is not None:
        given = [o for o, v in dask_only[1:3] if v is not None]
        if given:
            raise ConfigError(f"{', '.join(given)} start(s) a local cluster; with --scheduler "
                              f"{args.scheduler} that cluster's own workers run: leave "
                              f"{' and '.join(given)} out")
    args.workers = 2 if args.workers is None else args.workers
    args.memory_limit = "auto" if args.memory_limit is None else args.memory_limit
    args.rows_per_block = 2_000_000 if args.rows_per_block is None else args.rows_per_block


def run(args: argparse.Namespace) -> int:
    if args.old_layout is not None:  # the removed spelling: --format means an output format elsewhere
        raise ConfigError(f"convert: --format was removed; the input layout is --layout "
                          f"(--layout {args.old_layout})")
    args.layout = args.layout or "auto"
    config = config_from_args(args)
    from bench.datasets.sealed import DATA_DIR_DATASET, dataset_folders

    check_output_dir(args.out, option="--out", inputs=[("--ratings", args.ratings),
                                                       *dataset_folders()],
                     writes=converted_files(),  # a ratings folder, a fetched dataset: untouched
                     sealed=("--ratings", DATA_DIR_DATASET))
    _refuse_foreign(args.out)
    if not Path(args.out).exists() and Path(args.out).suffix.lower() in FILE_SUFFIXES:
        raise ConfigError(f"--out {args.out!r} looks like a file name; --out is the folder that "
                          "convert creates and fills with train/vali/test files: name a folder")
    _refuse_ignored(args)
    engine = get_engine(args.engine)
    if engine.converter is not None:  # the engine converts on its cluster
        return _run_on_cluster(args, config, engine)
    _say(args, f"reading {args.ratings}")
    from bench.datasets.ratings_source import read_ratings

    ratings, warnings = read_ratings(source_from_args(args), split=config.split)
    for warning in warnings:
        print(warning, file=sys.stderr)
    from bench.adapters.convert import convert
    from bench.adapters.summary_table import print_summary

    started = time.perf_counter()

    def say(stage: str) -> None:  # a line per stage: a large table takes minutes
        _say(args, f"{stage} ({time.perf_counter() - started:.0f} s)")

    summary = convert(ratings, args.out, config, parquet=not args.no_parquet,
                      svmlight=not args.no_svmlight, progress=say)
    print_summary(summary, args.out)
    return 0



def _refuse_foreign(out: str) -> None:
    """Refuse, before any work, an ``--out`` holding files a conversion would replace that no
    conversion wrote (:func:`bench.adapters.convert.foreign_outputs`): the user's own LETOR
    folder or Parquet set was replaced by the conversion, exit 0."""
    from bench.adapters.convert import foreign_outputs

    found = foreign_outputs(out)
    if found:
        raise ConfigError(f"--out {out!r} holds {', '.join(found)}, which no earlier conversion "
                          "wrote (summary.json does not list them): a dataset or files of yours "
                          "that convert would replace; choose a new or empty output folder, or "
                          "move them away")

def _run_on_cluster(args: argparse.Namespace, config: AdapterConfig, engine: Engine) -> int:
    from bench.adapters.summary_table import print_summary

    engine.check_convert(config)
    if args.ratings == "synthetic" or args.layout not in ("auto", "movielens-csv", "csv"):
        raise ConfigError(f"--engine {engine.name} reads MovieLens CSV folders (ratings.csv) "
                          "and CSV / Parquet ratings tables (a file, a glob or a folder of "
                          f"shards); not --ratings {args.ratings} --layout {args.layout}")
    if args.no_parquet:
        raise ConfigError(f"--engine {engine.name} writes Parquet shards only; drop --no-parquet")
    if args.duplicates != "error":  # an option the engine would ignore: refused, not dropped
        raise ConfigError(f"--duplicates {args.duplicates}: --engine {engine.name} refuses a "
                          "repeated (user, item) pair, naming both lines (it keeps no 'last' "
                          "nor 'mean'); drop the option, or convert with --engine local")
    for option, n in (("--workers", args.workers), ("--rows-per-block", args.rows_per_block)):
        if not 1 <= n <= 2**31 - 1:
            raise ConfigError(f"{option} {n}: expected an integer from 1 to {2**31 - 1}")
    columns = RatingColumns(user=args.user, item=args.item, rating=args.rating,
                            timestamp=args.timestamp, sep=args.sep)
    options = ClusterOptions(scheduler=args.scheduler, workers=args.workers,
                             memory_limit=args.memory_limit)
    summary = engine.convert(args.ratings, args.out, config, columns=columns, options=options,
                             rows_per_block=args.rows_per_block,
                             progress=lambda message: _say(args, message))
    print_summary(summary, args.out)
    return 0


def _say(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr when a person is watching it (a terminal) and progress is
    wanted (no ``--no-progress``): scripts and logs get the summary and errors only."""
    if progress_wanted(args) and sys.stderr.isatty():
        print(f"convert: {message}", file=sys.stderr, flush=True)
