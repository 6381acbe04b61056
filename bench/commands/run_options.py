"""The options that build a run's configuration, shared by ``run``, ``tune`` and ``crosscheck``.

Moved out of ``bench/commands/run.py`` so that a command that trains (``tune``, ``crosscheck``)
declares them without importing another command. Declaring the options imports nothing heavy;
:func:`config_from_args` imports the configuration layer (:mod:`bench.benchmark.config`) when it
runs.
"""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.benchmark.config import RunConfig

#: The configs shipped with ltrbench (``bench.benchmark.config.CONFIG_DIR``, found from here so
#: that ``--help`` imports nothing below the commands; a test checks that the two agree).
CONFIG_DIR = Path(__file__).resolve().parents[1] / "benchmark" / "configs"


def shipped_configs() -> list[str]:
    """The names ``--config`` accepts for the shipped configs (``experiments-mslr30k``)."""
    return sorted(x.stem.replace("_", "-") for x in CONFIG_DIR.glob("*.toml"))


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """The options shared by ``run`` and ``tune`` that build a RunConfig."""
    p.add_argument("--config", metavar="FILE.toml|NAME",
                   help="a run config (TOML), or the name of a shipped one: "
                   + ", ".join(shipped_configs()))
    p.add_argument("--dataset", metavar="NAME|PATH", help="catalogue name or path (default: synthetic)")
    p.add_argument("--models", metavar="M1,M2", help="comma-separated models or aliases "
                   "(lightgbm, xgboost, baselines, gbdt, all)")
    p.add_argument("--seeds", metavar="0,1,2", help="seeds (list or range 0-4)")
    p.add_argument("--metrics", metavar="LIST", help="reference metrics, e.g. ndcg@1,3,5,10,mrr")
    p.add_argument("--profile", help="reference-evaluator profile of metrics.csv (default ltrbench)")
    p.add_argument("--quick", action="store_true",
                   help="fewer, smaller trees (n_trees<=20, num_leaves<=15, patience 5)")
    p.add_argument("--n-trees", metavar="N", help="override params.n_trees")
    p.add_argument("--threads", metavar="N", help="override params.n_threads, the threads of "
                   "every library's fit (default 2 whatever the cores; 0 = all cores)")
    p.add_argument("--name", metavar="NAME",
                   help="the dataset's name in the run's tables and folders (default: the "
                        "catalogue name, or the folder's or file's name)")
    p.add_argument("--data-dir", metavar="DIR", help="where catalogue datasets are looked up")
    p.add_argument("--no-cache", action="store_true",
                   help="parse LETOR text files again instead of reading <data dir>/cache")


def resolve_config_path(value: str) -> Path:
    """A config path, or a shipped config by name (``experiments-mslr30k``)."""
    from bench.errors import ConfigError

    p = Path(value)
    _shadowing(p, value)
    if p.is_file() or (p.is_symlink() and not p.exists()):  # a dangling or looping link: read
        return p  # as the file it names, whose reader says which (not "no config file")
    a_path = p.suffix.lower() == ".toml" or "/" in value or value in (".", "..")
    if p.exists() and (a_path or not (CONFIG_DIR / f"{value.replace('-', '_')}.toml").is_file()):  # a folder, a device, a FIFO named as the config file
        kind = "is a directory" if p.is_dir() else "is not a regular file"
        raise ConfigError(f"--config {value}: {kind}; expected a TOML file")
    shipped = CONFIG_DIR / f"{value.replace('-', '_')}.toml"
    if shipped.is_file():
        return shipped
    from bench.data.folder_names import missing_note
    from bench.errors import did_you_mean

    raise ConfigError(f"no config file {value!r}{missing_note(p)}; "  # 'conf\\run.toml'
                      f"{did_you_mean(Path(value).stem, shipped_configs())}"
                      f"shipped configs: {', '.join(shipped_configs())}")


def _shadowing(p: Path, value: str) -> None:
    """Warn when ``--config NAME`` (no folder, no ``.toml``) names both a file here and a
    shipped config: the file is read, and a CI job with a stray file of that name would run it
    in place of the shipped config without a word."""
    import warnings

    shipped = CONFIG_DIR / f"{value.replace('-', '_')}.toml"
    if (p.is_file() and shipped.is_file() and "/" not in value
            and p.suffix.lower() != ".toml"):
        warnings.warn(f"--config {value}: reads the file {value} in this folder, not the shipped "
                      f"config {value!r} of the same name (write ./{value} to say the file; "
                      "move it away for the shipped one)", stacklevel=3)


def config_from_args(args: argparse.Namespace, *,
                     models: tuple[str, ...] | None = None) -> RunConfig:
    """The RunConfig of ``--config`` (or the defaults) with the command-line overrides applied.

    Each option goes through the config's schema (:mod:`bench.benchmark.config_schema`), its
    error naming the option: ``--seeds 1.5`` is refused as ``seeds = [1.5]`` is in a file.
    ``models``, when given, replaces ``--models``: names the caller has resolved already
    (:class:`~bench.runners.registry.ModelNames`, e.g. the cross-check's), not looked up again.
    Each model name is looked up once: ``--models`` names that the config file also lists take
    the spec resolved when the file was read.
    """
    from bench.benchmark.config import RunConfig
    from bench.data.toml import read_toml

    if not args.config:  # the defaults and the options: checked once
        return RunConfig(**_option_changes(None, args, models))
    path = resolve_config_path(args.config)
    config = RunConfig.load(path, quick=args.quick)  # the file checked under quick's caps
    changes = {k: v for k, v in _option_changes(config, args, models).items()
               if _as_held(config, k) != v}
    new = replace(config, **changes) if changes else config  # checked again only if changed
    if "dataset" not in changes and getattr(args, "resume", None) in (None, False):
        _file_dataset(new.dataset, path)
    over = _over_file(config, new, changes) if changes else {}
    doc = read_toml(path)
    if args.quick and doc.get("quick") is not True:  # --quick won over the file
        over["quick"] = {"option": "--quick", "file": False, "used": True}
    _say_over_file(args.config, over, doc)
    return new.noted({"path": str(path), "options_over_file": over})


def _say_over_file(config: str, over: dict[str, Any], doc: dict[str, Any]) -> None:
    """One stderr line for each key the file ``doc`` sets that an option won over: ``--seeds 5``
    over ``seeds = [0, 1]`` trained seed 5 only, and only the manifest's ``config_file`` said
    so. A key the file leaves out is the default's, which the option replaces without a word."""
    import json

    from bench.streams import say

    def toml(value: Any) -> str:  # one line, as a config file spells it
        if value is None:
            return "(not set)"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list | tuple):
            return "[" + ", ".join(map(toml, value)) + "]"
        return json.dumps(value) if isinstance(value, str) else repr(value)

    for key, v in over.items():
        table, _, name = key.rpartition(".")
        if name not in (doc.get(table, {}) if table else doc):
            continue
        shown = f"[{table}] {name}" if table else name
        say(f"note: {v['option']} overrides {shown} = {toml(v['file'])} of {config}; the run "
            f"uses {shown} = {toml(v['used'])} (recorded in the manifest's config_file)")


def _as_held(config: RunConfig, key: str) -> Any:
    """``config``'s value of ``key`` as an option's value is held: a file's ``dataset =
    "./letor"`` is ``--dataset ./letor``'s ``letor`` (else the option was said, and recorded,
    as overriding the file with the same folder)."""
    value = getattr(config, key)
    if key == "dataset":
        from bench.datasets.catalogue import canonical_dataset, tidy_folder

        with contextlib.suppress(Exception):  # a value the option's path would refuse: as is
            return tidy_folder(canonical_dataset(value))
    return value


def _file_dataset(dataset: str, path: Path) -> None:
    """Refuse, naming the file and its key, a config file's ``dataset`` that is neither a
    catalogue name nor an existing path (a template that left ``"{{ dataset }}"`` or an empty
    variable): the loader said only ``unknown dataset '{{ dataset }}'`` once the run had
    started, naming neither the file nor the key. A resumed run is left to its own search
    (:mod:`bench.datasets.recorded`); ``--dataset`` names its value itself."""
    import warnings

    from bench.datasets.resolve import resolve_spec
    from bench.errors import ConfigError, DataError

    try:
        with warnings.catch_warnings():  # the load says them, once
            warnings.simplefilter("ignore")
            resolve_spec(dataset)
    except (ConfigError, DataError) as exc:
        raise ConfigError(f"{path}: dataset: {exc}") from None


#: The option that sets each config key (``--name`` for ``name`` ...), for the manifest.
_OPTIONS = {"cache": "--no-cache", "crosscheck": "--no-crosscheck", "params.n_trees": "--n-trees",
            "params.n_threads": "--threads"}


def _over_file(old: RunConfig, new: RunConfig, keys: dict[str, Any]) -> dict[str, Any]:
    """``{key: {"option", "file", "used"}}`` of each config key an option changed: the option
    wins over the file (``run --help``), and the manifest says so (``config_file``)."""
    before, after = old.to_dict(), new.to_dict()
    pairs = [(f"params.{k}", v, after["params"][k]) for k, v in before["params"].items()
             if k in after["params"] and after["params"][k] != v] if "params" in keys else []
    pairs += [(k, before.get(k), after.get(k)) for k in keys if k != "params"]
    return {k: {"option": _OPTIONS.get(k, "--" + k.replace("_", "-")), "file": a, "used": b}
            for k, a, b in pairs if a != b}


def _option_changes(config: RunConfig | None, args: argparse.Namespace,
                    models: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The RunConfig fields the options set (over ``config``, else over the defaults)."""
    from bench.benchmark.config import DEFAULT_RUN_PARAMS, parse_seeds
    from bench.benchmark.config_schema import TOP_SPECS, check_data_dir, check_name, cli_int
    from bench.benchmark.scoring import run_metrics
    from bench.datasets.folds import fold_suffix
    from bench.errors import ConfigError
    from bench.runners.params import param_spec
    from bench.runners.registry import expand_models

    changes: dict[str, Any] = {}
    if args.dataset is not None:
        from bench.datasets.catalogue import canonical_dataset, tidy_folder

        changes["dataset"] = tidy_folder(canonical_dataset(args.dataset))  # as the config holds it
        if (config is not None and config.dataset != changes["dataset"] and config.name
                and getattr(args, "name", None) is None):
            changes["name"] = _unnamed_replaced_dataset(config, args)
    if getattr(args, "name", None) is not None:
        changes["name"] = check_name(args.name, "--name")
        if fold_suffix(args.name)[1] is not None:  # a plain run would pass for a fold of NAME
            raise ConfigError(f"--name: {args.name!r} ends as ltrbench names a dataset's fold "
                              "(NAME:FoldK, given to each fold of --folds); name the dataset "
                              "without it")
    if models is not None:
        changes["models"] = models
    elif args.models is not None:  # '' is refused (no models), not the default
        known = {m: config.model_spec(m) for m in config.models} if config else None
        try:
            changes["models"] = expand_models(args.models, config.custom_refs if config else None,
                                              known=known)
        except ConfigError as exc:
            raise ConfigError(f"--models: {exc}") from None
    if args.seeds is not None:
        changes["seeds"] = parse_seeds(args.seeds, where="--seeds")
    if args.metrics is not None:
        changes["metrics"] = run_metrics(args.metrics, "--metrics")
    if args.profile is not None:
        changes["profile"] = args.profile
    if args.quick:
        changes["quick"] = True
    if args.data_dir is not None:
        check_data_dir(args.data_dir, "--data-dir")
        changes["data_dir"] = args.data_dir
    if getattr(args, "no_cache", False):
        changes["cache"] = False
    params = config.params if config else DEFAULT_RUN_PARAMS
    for option, key in (("--n-trees", "n_trees"), ("--threads", "n_threads")):
        value = cli_int(getattr(args, key.replace("n_threads", "threads")), param_spec(key), option)
        if value is not None:
            params = params.with_overrides(**{key: value})
            _refuse_shadowed(option, value, key, config, args)
            _refuse_quick_cap(option, value, key, args.quick or bool(config and config.quick))
    changes["params"] = params
    for flag in ("permute_check", "permute_retrain", "strict"):
        if getattr(args, flag, False):
            changes[flag] = True
    if getattr(args, "timing", None):
        changes["timing"] = args.timing
    for key in ("timing_repeats", "workers"):
        value = cli_int(getattr(args, key, None), TOP_SPECS[key], f"--{key.replace('_', '-')}")
        if value is not None:
            changes[key] = value
    _refuse_local_workers(config, args)
    for key in ("engine", "scheduler", "device"):
        if getattr(args, key, None) is not None:
            changes[key] = getattr(args, key)
    if getattr(args, "no_crosscheck", False):
        changes["crosscheck"] = False
    return changes


def _refuse_local_workers(config: RunConfig | None, args: argparse.Namespace) -> None:
    """A ConfigError for ``--workers`` on an engine without a cluster: ``--workers 2`` (the
    Dask default) passed the config's own check, which cannot tell 2 given from 2 by default,
    and ``run`` / ``tune`` trained in this process, one trial at a time, without a word."""
    from bench.engines import get_engine
    from bench.errors import ConfigError

    engine = getattr(args, "engine", None) or (config.engine if config else "local")
    if getattr(args, "workers", None) is not None and not get_engine(engine).on_cluster:
        raise ConfigError(f"--workers {args.workers}: workers = {args.workers} applies to "
                          f"engine 'dask' (--engine dask); the {engine} engine runs in this "
                          "process and would ignore it: add --engine dask or leave it out")


def _refuse_shadowed(option: str, value: int, key: str, config: RunConfig | None,
                     args: argparse.Namespace) -> None:
    """A ConfigError when the config file's ``[model_params.<model>]`` sets ``key`` too: that
    value would win for that model (:meth:`RunConfig.params_for`), so ``--n-trees 3`` would
    train another number of trees without a word."""
    from bench.errors import ConfigError

    shadowed = [m for m, table in (config.model_params.items() if config else ()) if key in table]
    if shadowed and config is not None:
        m = shadowed[0]
        raise ConfigError(f"{option} {value}: the config file {args.config} sets "
                          f"[model_params.{m}] {key} = {config.model_params[m][key]!r}, which "
                          f"wins for {m} over the option; remove one of the two")


def _refuse_quick_cap(option: str, value: int, key: str, quick: bool) -> None:
    """A ConfigError when quick mode would cap the value an option asks for: ``--quick
    --n-trees 100`` trained 20 trees, silently (the rule: :mod:`bench.benchmark.quick`)."""
    from bench.benchmark.quick import refuse_above_cap

    if quick:
        refuse_above_cap(f"{option} {value}", key, value)


def _unnamed_replaced_dataset(config: RunConfig, args: argparse.Namespace) -> str:
    """The ``name`` of a run whose ``--dataset`` replaces the dataset of a config file that names
    it: none (the run is named after its own data, as without the file), said on stderr. The
    file's ``name = "experiments-mslr30k"`` labelled a run of ``synthetic-mslr30k:0.001`` in
    every table before; ``--name`` chooses one. (A ``published`` table of the file is looked up
    under the data's catalogue card, :func:`bench.report.build.published_key`, so it shows only
    beside the dataset it was published for.)"""
    import warnings

    from bench.benchmark.pipeline import ConfigWarning

    warnings.warn(f"--dataset {args.dataset} replaces the dataset {config.dataset!r} of "
                  f"{args.config}, so the run is named after {args.dataset!r}, not after the "
                  f"file's name {config.name!r} (give --name to choose a name)", ConfigWarning, stacklevel=2)
    return ""
