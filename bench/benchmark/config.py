"""``RunConfig``: what a benchmark run does, loaded from TOML, with defaults.

A config file is flat at the top (run keys) with three optional tables::

    dataset = "synthetic"                 # catalogue name or path (see bench.datasets.resolve)
    models = ["lightgbm-lambdarank", "xgboost-ndcg", "catboost-lambdamart", "popularity", "random", "als"]
    seeds = [0, 1, 2]
    metrics = ["ndcg@1,3,5,10", "map@10", "mrr", "p@10", "recall@10"]
    profile = "ltrbench"                  # reference-evaluator profile of metrics.csv
    quick = false
    select_metric = "ndcg@10"             # the library NDCG that early stopping watches
    early_stopping_split = "vali"         # the only accepted value
    timing = "inprocess"                  # or "isolated": each (model, seed) in a fresh process
    timing_repeats = 1                    # fits per (model, seed); fit time = median, with range
    engine = "local"                      # or "dask": GBDTs trained on a Dask cluster
    workers = 2                           # dask: local worker processes (no scheduler given)
    scheduler = "tcp://host:8786"         # dask: an existing cluster (not part of the hash)

    [params]                              # bench.runners.params.Params fields; keys not given
    n_trees = 300                         # take DEFAULT_RUN_PARAMS (Params defaults with
                                          # n_trees = 300, subsample = colsample = 0.8); the seed is
                                          # replaced by each run seed

    [model_params.xgboost-ndcg]           # per-model overrides of [params]
    min_split_gain = 1.0

    [als]                                 # bench.runners.baselines.ALSParams fields
    factors = 32

    [custom_models.mine]                  # a user's model, named in `models` like any other
    factory = "mypackage.rankers:make"    # "module:attribute": a class or function returning a
    params = { alpha = 0.1 }              # ranker with fit/predict (bench.runners.custom); the
                                          # factory gets params plus each run seed

A custom model's name may not be a built-in model or alias; ``quick``, ``[params]``,
``[model_params]`` and the thread count do not apply to it (its ``params`` are its own), and
it is trained in this process (not with ``timing = "isolated"`` or ``engine = "dask"``).

Relative paths in a config (``dataset``, ``data_dir``) are relative to the current directory, as
on the command line: ``--config sub/c.toml`` with ``dataset = "./letor"`` reads ``./letor``;
a file that says ``paths_relative_to = "config file"`` (as ``ltrbench tune``'s ``best.toml``
does) means its own folder: ``sub/letor`` (:func:`bench.datasets.recorded.paths_from_config_folder`).

Every value is typed and range-checked, never coerced (:mod:`bench.benchmark.config_schema`):
the same checks run for a file, for ``RunConfig(...)`` / ``from_dict`` in Python and for the
command-line options, and the GBDT models' parameters are checked against the ranges their
library accepts before any data are loaded.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from bench.benchmark.config_frozen import frozen_models, read_only, thawed
from bench.benchmark.config_hash import config_hash as hash_of
from bench.benchmark.config_hash import hash_as_written
from bench.benchmark.config_schema import (
    ENGINES,
    TIMING_MODES,
    TOP_SPECS,
    check_als,
    check_data_dir,
    check_published,
    check_scalars,
    check_selection_split,
    name_list,
    named,
    parse_eval_at,
    parse_seeds,
    plain_params,
    python_value,
    refuse_misplaced,
    selection_metric,
    unknown_top_key,
)
from bench.benchmark.config_text import check_rendered, foreign_document
from bench.benchmark.config_unused import unused_settings
from bench.benchmark.quick import QUICK_LIMITS, quick_capped
from bench.benchmark.scoring import expand_metrics, run_metrics
from bench.data import toml as tomlio
from bench.data.dask_cluster import check_scheduler_address
from bench.datasets.catalogue import canonical_dataset
from bench.datasets.recorded import paths_from_config_folder
from bench.engines import DEFAULT_ENGINE, cluster_engines, get_engine
from bench.errors import ConfigError
from bench.metrics.families import DEFAULT_METRICS, PRIMARY_METRIC
from bench.metrics.profiles import DEFAULT_PROFILE, Profile, get_profile
from bench.runners.baselines import ALSParams
from bench.runners.custom import CustomModel, check_distinct_names, custom_model
from bench.runners.params import Params, canonical_table, check_for_library, check_param_values
from bench.runners.raw_keys import refuse_ignored
from bench.runners.registry import (
    DEFAULT_MODELS,
    ModelNames,
    ModelSpec,
    expand_models,
    get_model,
    run_models,
    table_model,
)
from bench.runners.result import SELECTION_SPLIT, Selection

#: The configs shipped with ltrbench (``ltrbench run --config NAME``).
CONFIG_DIR = Path(__file__).resolve().parent / "configs"
#: Parameters of a config that gives no ``[params]``: the Params defaults (LightGBM's defaults)
#: with room for 300 trees (early stopping on the validation split decides how many are used)
#: plus row and feature subsampling, so that each seed trains a different model. With
#: ``subsample = colsample = 1`` both libraries are deterministic and every seed gives the same
#: model, which makes a spread over seeds meaningless.
DEFAULT_RUN_PARAMS = Params(n_trees=300, subsample=0.8, colsample=0.8)
#: Keys that would choose something on a split; each must be "vali".
_SELECTION_KEYS = ("early_stopping_split", "select_on", "selection_split", "validation_split")
__all__ = ["CONFIG_DIR", "DEFAULT_MODELS", "DEFAULT_RUN_PARAMS", "ENGINES", "QUICK_LIMITS", "TIMING_MODES", "RunConfig", "check_selection_split", "parse_seeds"]


@dataclass(frozen=True)
class RunConfig:
    """A benchmark run: dataset, models, seeds, parameters, metrics, profile.

    ``data_dir`` (where catalogue datasets are looked up), ``crosscheck`` and the permute flags do
    not change any number and are not part of :meth:`config_hash`.
    """

    dataset: str = "synthetic"
    models: tuple[str, ...] = DEFAULT_MODELS
    seeds: tuple[int, ...] = (0, 1, 2)
    metrics: tuple[str, ...] = DEFAULT_METRICS
    profile: str = DEFAULT_PROFILE
    quick: bool = False
    select_metric: str = PRIMARY_METRIC
    early_stopping_split: str = SELECTION_SPLIT
    eval_at: tuple[int, ...] = (1, 3, 5, 10)
    log_train: bool = True
    params: Params = DEFAULT_RUN_PARAMS
    model_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    custom_models: dict[str, CustomModel] = field(default_factory=dict)
    als: ALSParams = field(default_factory=ALSParams)
    name: str = ""
    description: str = ""
    published: str = ""
    data_dir: str | None = None
    crosscheck: bool = True
    permute_check: bool = False
    permute_retrain: bool = False
    strict: bool = False
    timing: str = "inprocess"
    timing_repeats: int = 1
    cache: bool = True
    engine: str = "local"
    scheduler: str | None = None
    workers: int = 2
    device: str = "cpu"

    def __post_init__(self) -> None:
        """Validate everything a run needs from its config, before any data is loaded: the
        selection split and metric, the profile, the metric and model names, seeds, parameters."""
        self._check_types()
        object.__setattr__(self, "early_stopping_split", named(
            "early_stopping_split", check_selection_split, self.early_stopping_split))
        metric, k = named("select_metric", selection_metric, self.select_metric)  # 'NDCG@10'
        object.__setattr__(self, "select_metric", metric)
        object.__setattr__(self, "_selection_k", k)
        prof = named("profile", get_profile, self.profile)  # " LightGBM" is lightgbm
        object.__setattr__(self, "_profile", prof)
        object.__setattr__(self, "profile", prof.name)  # recorded as the canonical name
        if tuple(expand_metrics(self.metrics, prof)) != tuple(self.metrics):
            raise ConfigError(
                f"metrics must be canonical names (use RunConfig.from_dict or expand_metrics); "
                f"got {list(self.metrics)}"
            )
        if self.params.device != "cpu" or any("device" in v for v in self.model_params.values()
                                               if isinstance(v, dict)):
            raise ConfigError("device: the device is set once, at the top of the config (device = "
                              "\"cuda\") or with --device, not among the parameters")
        engine = get_engine(self.engine)
        if engine.on_cluster and self.device != "cpu":
            raise ConfigError(f"device 'cuda' applies to the local engine; the {engine.title} "
                              "workers' devices are not managed by ltrbench")
        if not engine.on_cluster and (self.scheduler is not None or self.workers != 2):
            given = "scheduler" if self.scheduler is not None else f"workers = {self.workers}"
            on = " or ".join(f"engine {e!r} (--engine {e})" for e in cluster_engines())
            raise ConfigError(f"{given} applies to {on}; the local "
                              "engine trains in this process and would ignore it")
        if engine.on_cluster and self.scheduler is not None:  # a typo said before any data
            check_scheduler_address(self.scheduler)
        if self.permute_retrain and not self.permute_check:
            raise ConfigError("permute_retrain (--permute-retrain) goes with permute_check "
                              "(--permute-check), which it extends; alone it would be ignored")
        if engine.on_cluster and self.timing != "inprocess":
            raise ConfigError(f"--timing isolated applies to the local engine; a {engine.title} "
                              "fit runs on the cluster's worker processes already")
        check_published(self.published)  # said now, not when ``report`` reads the run
        self._check_custom_models()  # imports the user's modules: after every check that needs none
        self._resolve_models()
        self._check_model_params()
        object.__setattr__(self, "model_params", read_only(self.model_params, "model_params"))
        object.__setattr__(self, "custom_models", frozen_models(self.custom_models))  # no change

    def __hash__(self) -> int:
        """Equal configs hash equal (their TOML texts are equal); its tables are read-only."""
        return hash(self.to_toml())

    def unused(self) -> list[str]:
        """What this config sets that the run does not use, in words (the run warns about each,
        :func:`bench.benchmark.pipeline.run_benchmark`): :func:`~bench.benchmark.config_unused.
        unused_settings`."""
        return unused_settings(self, DEFAULT_RUN_PARAMS)

    def _check_types(self) -> None:
        """Every field typed and in range (:mod:`bench.benchmark.config_schema`); lists as tuples."""
        for f in fields(self):  # np.int64(3), an Enum member, a Path: as from_dict reads them
            if not isinstance(value := getattr(self, f.name), ModelNames):
                object.__setattr__(self, f.name, python_value(value, f.name))  # tables thawed
        spelled = check_scalars({f.name: getattr(self, f.name) for f in fields(self)
                                 if f.name in TOP_SPECS})
        for key, value in spelled.items():  # RunConfig(engine="Dask"): "dask", said once
            object.__setattr__(self, key, value)
        object.__setattr__(self, "seeds", parse_seeds(self.seeds))
        object.__setattr__(self, "eval_at", parse_eval_at(self.eval_at))
        object.__setattr__(self, "dataset", canonical_dataset(self.dataset))  # "Synthetic"
        for key in ("models", "metrics"):
            value = getattr(self, key)
            name_list(value, key)
            if isinstance(value, list):
                object.__setattr__(self, key, tuple(value))
        if not isinstance(self.params, Params):
            raise ConfigError(f"params: expected a Params (or a table in a config file); got "
                              f"{tomlio.show(self.params)}")
        if not isinstance(self.als, ALSParams):
            raise ConfigError(f"als: expected an ALSParams (or a table); got {tomlio.show(self.als)}")
        object.__setattr__(self, "als", ALSParams(**check_als(asdict(self.als))))  # canonical
        object.__setattr__(self, "model_params", copy.deepcopy(tomlio.table(  # a copy: the
            self.model_params, "model_params")))  # caller's dicts may change after

    def _check_model_params(self) -> None:
        """``[model_params.<model>]``: a table per model, its keys and values checked like
        ``[params]``; then every GBDT model's parameters against its library's limits."""
        specs: dict[str, ModelSpec] = self.__dict__["_model_specs"]
        for model, values in self.model_params.items():
            where = f"[model_params.{model}]"
            if model in self.custom_models:
                raise ConfigError(f"{where}: {model!r} is a custom model; its parameters go in "
                                  f"[custom_models.{model}] params")
            spec = specs[model] if model in specs else named(where, table_model, model)
            self.model_params[model] = {} if values == {} else self._check_model_table(spec, values, where)  # empty: sets nothing, a baseline's too
        object.__setattr__(self, "model_params", {m: t for m, t in self.model_params.items() if t})
        for model in self.models:  # an empty table (checked) sets nothing: no table, one hash
            if specs[model].is_gbdt:
                self._check_library_params(specs[model])

    def _check_model_table(self, spec: ModelSpec, values: Any, where: str) -> dict[str, Any]:
        """``[model_params.<model>]`` of the GBDT model ``spec``, checked as ``[params]``; its
        values canonical (``l1 = 0`` and ``-0.0`` are ``0.0``: one config, one hash)."""
        if not spec.is_gbdt:  # said before its keys are judged as a GBDT's
            raise ConfigError(f"{where}: {spec.name!r} is not a LightGBM, XGBoost or CatBoost "
                              "model; its parameters are not these (ALS: the [als] table)")
        refuse_misplaced(values, f"{where} ", [f.name for f in fields(self)])
        check_param_values(tomlio.table(values, where), where=f"{where} ", library=spec.library)
        refuse_ignored(spec.library, values, f"{where} ", spec.objective)
        try:
            self.params.with_overrides(**values)
        except ConfigError as exc:
            raise ConfigError(f"{where} {exc}") from None
        return canonical_table(values)

    def _check_library_params(self, spec: ModelSpec) -> None:
        """What the GBDT model ``spec`` trains with, against its library's limits."""
        model = spec.name
        where = f"[model_params.{model}] " if model in self.model_params else "[params] "
        try:
            check_for_library(self.params_for(model, self.seeds[0]), spec.library,
                              spec.objective, where)
        except ConfigError as exc:
            msg = str(exc)
            raise ConfigError(msg if msg.startswith("[") else f"{model}: {msg}") from None

    def _check_custom_models(self) -> None:
        """Custom models as :class:`CustomModel` (a factory reference or callable is resolved
        here), and only where they can run: in this process, trained as they are."""
        if not isinstance(self.custom_models, dict):
            raise ConfigError("custom_models must be a table of custom models")
        check_distinct_names(str(n) for n in self.custom_models)
        object.__setattr__(self, "custom_models", {
            str(n): v if isinstance(v, CustomModel) and v.name == n else custom_model(str(n), v)
            for n, v in self.custom_models.items()})
        used = [m for m in self.models if m in self.custom_models]
        if used and self.timing != "inprocess":
            raise ConfigError(f"custom model(s) {', '.join(used)}: timing {self.timing!r} is not "
                              "available for custom models (they are trained in this process)")
        if used and self.engine != DEFAULT_ENGINE:
            raise ConfigError(f"custom model(s) {', '.join(used)}: engine {self.engine!r} is not "
                              "available for custom models (they are trained in this process)")
        if used and self.permute_retrain:
            raise ConfigError(f"custom model(s) {', '.join(used)}: permute_retrain retrains the "
                              "library models only; leave it off or run the custom models apart")

    def _resolve_models(self) -> None:
        """Each name resolved once (:func:`~bench.runners.registry.run_models`) into ``models``,
        :class:`~bench.runners.registry.ModelNames` carrying the specs (:meth:`model_spec`)."""
        names = run_models(self.models, self.custom_refs)
        object.__setattr__(self, "models", names)
        object.__setattr__(self, "_model_specs", names.by_name())

    @property
    def profile_value(self) -> Profile:
        """The run's :class:`~bench.metrics.profiles.Profile`, resolved once from ``profile``
        when the config was made (``profile`` holds its canonical name: ``" LightGBM "`` is
        recorded as ``lightgbm`` in the manifest, metrics.csv and the report)."""
        profile: Profile = self.__dict__["_profile"]
        return profile

    @property
    def selection(self) -> Selection:
        """The selection metric as the value the trainers take (:class:`Selection`, ``k`` =
        :attr:`selection_k`)."""
        return Selection(self.selection_k)

    @property
    def selection_k(self) -> int:
        """The cutoff ``k`` of ``select_metric`` (``ndcg@k``), parsed once when the config was made."""
        k: int = self.__dict__["_selection_k"]
        return k

    @property
    def custom_refs(self) -> dict[str, str]:
        """Custom model name -> factory reference (what :func:`expand_models` accepts)."""
        return {n: c.factory for n, c in self.custom_models.items()}

    def model_spec(self, model: str) -> ModelSpec:
        """The :class:`~bench.runners.registry.ModelSpec` of ``model``, a custom model included:
        for a model of the run, the one resolved when the config was made."""
        specs: dict[str, ModelSpec] = self.__dict__.get("_model_specs", {})
        return specs[model] if model in specs else get_model(model, self.custom_refs)

    def for_model(self, spec: ModelSpec) -> RunConfig:
        """This config for its model ``spec`` alone (what ``ltrbench tune`` searches with), not
        validated again: each check holds for fewer models; a model it did not hold gets the one
        check that is new, its parameters against its library."""
        spec = run_models(ModelNames((spec,)), self.custom_refs).specs[0]  # a forged one refused
        new = self._unchecked(models=ModelNames((spec,)))
        object.__setattr__(new, "_model_specs", {spec.name: spec})
        if spec.name not in self.models:
            new._check_library_params(spec)
        return new

    def with_model_params(self, spec: ModelSpec, params: Mapping[str, Any]) -> RunConfig:
        """This config with ``params`` over the ``[model_params]`` table of its GBDT model
        ``spec`` (tune's ``best.toml``), checked as the validation checks a table."""
        spec = run_models(ModelNames((spec,)), self.custom_refs).specs[0]  # a forged one refused
        values = {**self.model_params.get(spec.name, {}), **python_value(dict(params), spec.name)}
        values = self._check_model_table(spec, values, f"[model_params.{spec.name}]")
        new = self._unchecked(model_params={**self.model_params, spec.name: values})
        new._check_library_params(spec)
        return new

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> RunConfig:
        """Build from a parsed TOML document (or the same keys in Python): every value typed and
        range-checked, an unknown key refused with the closest valid name (see
        :mod:`bench.benchmark.config_schema`)."""
        doc = tomlio.table(python_value(dict(doc)) if isinstance(doc, Mapping) else doc, "config")
        check_rendered(doc)  # "{{ name }}" left by a template: refused wherever it is
        if "run" in doc and isinstance(doc["run"], dict):  # also accept a [run] table
            run = tomlio.table(doc.pop("run"), "[run]")
            twice = sorted(set(run) & set(doc))
            if twice:
                raise ConfigError(f"{', '.join(twice)}: given twice, at the top of the config and "
                                  "in [run]; keep one (the values may differ)")
            doc = {**run, **doc}
        for key in _SELECTION_KEYS:
            if key in doc:
                if not isinstance(doc[key], str):
                    TOP_SPECS["early_stopping_split"].check(doc[key], key)
                try:  # 'Vali' is vali, said once here (kept as spelled)
                    doc[key] = check_selection_split(doc[key])
                except ConfigError as exc:
                    raise ConfigError(f"{key}: {exc}") from None
        doc = {k: v for k, v in doc.items() if k not in _SELECTION_KEYS[1:]}  # all "vali"
        valid = [f.name for f in fields(cls)]
        kwargs: dict[str, Any] = {}
        for key, value in doc.items():
            if key not in valid:  # a pyproject.toml, a LightGBM config: said as such
                raise foreign_document(doc, valid) or unknown_top_key(key, valid)
            kwargs[key] = _parse_key(key, value, doc)
        return cls(**kwargs)

    @classmethod
    def load(cls, path: str | Path, *, quick: bool = False) -> RunConfig:
        """Read a TOML config file (see the module docstring); every error names the file, and
        so does every later error of a custom model it defines (:attr:`CustomModel.source`).
        ``quick``: as if the file said ``quick = true`` (``--quick``: checked with its caps)."""
        try:
            doc = tomlio.read_toml(path)
            if not doc:  # empty, or comments only: the defaults run, which it did not mean
                warnings.warn(f"{path}: sets nothing (empty, or comments only): the defaults "
                              "run", stacklevel=2)
            doc = paths_from_config_folder(doc, path)  # paths_relative_to = "config file"
            config = cls.from_dict({**doc, "quick": True} if quick else doc)
            object.__setattr__(config, "_hash_as_written", hash_as_written(config, doc))
            check_data_dir(config.data_dir)
            if not config.custom_models:
                return config
            return config._unchecked(custom_models={  # the source names errors only: no re-check
                n: replace(c, source=str(path)) for n, c in config.custom_models.items()})
        except ConfigError as exc:
            msg = str(exc)
            raise ConfigError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
        except TypeError as exc:
            raise ConfigError(f"{path}: {exc}") from None

    # -- resolution ---------------------------------------------------------------------------
    def resolved(self) -> RunConfig:
        """Quick limits applied, ``n_threads = 0`` replaced by this machine's CPU count. Not
        validated again: the checks that built this config already ran on these parameters
        (:meth:`params_for` applies the same limits and thread count when they are checked)."""
        params = self.params
        if self.quick:
            params = quick_capped(params)
        params = replace(params, n_threads=params.resolved_threads())
        return self._unchecked(params=params)

    @property
    def over_file(self) -> dict[str, Any] | None:
        """What command-line options changed over a config file (:meth:`noted`), else ``None``:
        the manifest's ``config_file`` (the option wins; the run trains and records its value)."""
        noted: dict[str, Any] | None = self.__dict__.get("_over_file")
        return noted

    def noted(self, over_file: Mapping[str, Any] | None) -> RunConfig:
        """This config carrying ``over_file`` (:attr:`over_file`); not validated again."""
        new = self._unchecked()
        object.__setattr__(new, "_over_file", None if over_file is None else dict(over_file))
        return new

    def _unchecked(self, **changes: Any) -> RunConfig:
        """A copy with ``changes`` that does not run the validation again: only for changes that
        the checks already passed keep valid (the values :meth:`resolved` settles, a custom
        model's source file). Every other change goes through :func:`dataclasses.replace`."""
        new = copy.copy(self)
        for key, value in changes.items():
            value = frozen_models(value) if key == "custom_models" else read_only(
                value, key) if key == "model_params" else value  # read-only, as after the checks
            object.__setattr__(new, key, value)
        return new

    def params_for(self, model: str, seed: int) -> Params:
        """The parameters ``model`` trains with for ``seed`` (per-model overrides, quick limits)."""
        params = self.params.with_overrides(**self.model_params.get(model, {}))
        if self.quick:
            params = quick_capped(params)
        return replace(params, seed=seed, n_threads=params.resolved_threads(), device=self.device)

    # -- output -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain values for TOML / JSON (``None`` values left out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "params":
                value = plain_params(value)
            elif f.name == "als":
                value = asdict(value)
            elif f.name == "model_params":  # plain dicts: the caller's to change
                value = thawed(value)
            elif f.name == "custom_models":  # none: the hash of earlier runs stays as it was
                value = {n: c.to_dict() for n, c in value.items()} or None
            elif isinstance(value, tuple):
                value = list(value)
            if value is not None:
                out[f.name] = value
        return out

    def to_toml(self, *, header: str = "") -> str:
        """The config as TOML text; :meth:`from_dict` of its parse gives back an equal config."""
        return tomlio.dumps(self.to_dict(), header=header)

    def config_hash(self) -> str:
        """12 hex digits of the SHA-256 of the number-changing part of the config
        (:func:`bench.benchmark.config_hash.config_hash`)."""
        return hash_of(self.to_dict(), engine=self.engine, device=self.device)


def _parse_key(key: str, value: Any, doc: Mapping[str, Any]) -> Any:
    """The RunConfig field ``key`` from its document value, checked (errors name the key)."""
    if key == "params":
        values = tomlio.table(value, "params")
        refuse_misplaced(values, "[params] ", [f.name for f in fields(RunConfig)])
        check_param_values(values, where="[params] ")
        return Params.from_dict({**plain_params(DEFAULT_RUN_PARAMS), **values}, where="[params] ")
    if key == "als":
        return ALSParams(**check_als(tomlio.table(value, "als")))
    if key == "model_params":
        return {str(m): tomlio.table(v, f"[model_params.{m}]")
                for m, v in tomlio.table(value, key).items()}
    if key == "custom_models":
        return tomlio.table(value, key)
    if key == "models":
        custom = doc.get("custom_models")
        refs = {str(n): "" for n in custom} if isinstance(custom, dict) else None
        return named(key, expand_models, name_list(value, key), refs)
    if key == "metrics":
        return named(key, run_metrics, name_list(value, key))
    if key == "seeds":
        return parse_seeds(value)
    if key == "eval_at":
        return parse_eval_at(value)
    if value is None and key in ("data_dir", "scheduler"):
        return None
    return TOP_SPECS[key].check(value, key) if key in TOP_SPECS else value
