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

Any key naming the test split for early stopping or selection raises
:class:`~bench.errors.ConfigError`: the test split is evaluated once, after training.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from bench.benchmark.scoring import expand_metrics
from bench.data import toml as tomlio
from bench.errors import ConfigError
from bench.metrics.families import DEFAULT_METRICS, PRIMARY_METRIC, selection_cutoff
from bench.metrics.profiles import DEFAULT_PROFILE, get_profile
from bench.runners.baselines import ALSParams
from bench.runners.custom import CustomModel, custom_model
from bench.runners.params import DEVICES, RAW_TABLES, Params
from bench.runners.registry import BASELINES, LAMBDAMART, ModelSpec, expand_models, get_model
from bench.runners.result import SELECTION_SPLIT

#: The configs shipped with ltrbench (``ltrbench run --config NAME``).
CONFIG_DIR = Path(__file__).resolve().parent / "configs"
#: Models of ``ltrbench run`` with no arguments (the baselines skip themselves on non-recommender data).
DEFAULT_MODELS: tuple[str, ...] = (*LAMBDAMART, *BASELINES)
#: Parameters of a config that gives no ``[params]``: the Params defaults (LightGBM's defaults)
#: with room for 300 trees (early stopping on the validation split decides how many are used)
#: plus row and feature subsampling, so that each seed trains a different model. With
#: ``subsample = colsample = 1`` both libraries are deterministic and every seed gives the same
#: model, which makes a spread over seeds meaningless.
DEFAULT_RUN_PARAMS = Params(n_trees=300, subsample=0.8, colsample=0.8)
#: ``quick = true`` caps these parameters (for every model).
QUICK_LIMITS: dict[str, int] = {"n_trees": 20, "early_stopping_rounds": 5, "num_leaves": 15}
#: Keys that would choose something on a split; each must be "vali".
_SELECTION_KEYS = ("early_stopping_split", "select_on", "selection_split", "validation_split")
#: Keys left out of the config hash (they do not change any number).
_UNHASHED = (
    "data_dir", "crosscheck", "permute_check", "permute_retrain", "name", "description", "timing",
    "timing_repeats", "cache", "scheduler", "strict",
)
#: How fits are timed: in the benchmark's process, or each (model, seed) in a fresh subprocess.
TIMING_MODES: tuple[str, ...] = ("inprocess", "isolated")
#: Where the GBDTs are trained: this process (or isolated children), or a Dask cluster.
ENGINES: tuple[str, ...] = ("local", "dask")


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
        check_selection_split(self.early_stopping_split)
        selection_cutoff(self.select_metric)
        if any(not isinstance(k, int) or k < 1 for k in self.eval_at):
            raise ConfigError(f"eval_at must be positive integers; got {list(self.eval_at)}")
        get_profile(self.profile)
        self._check_custom_models()
        if tuple(expand_metrics(self.metrics)) != tuple(self.metrics):
            raise ConfigError(
                f"metrics must be canonical names (use RunConfig.from_dict or expand_metrics); "
                f"got {list(self.metrics)}"
            )
        if tuple(expand_models(self.models, self.custom_refs)) != tuple(self.models):
            raise ConfigError(f"models must be registered names, without repeats; got {list(self.models)}")
        if not self.seeds:
            raise ConfigError("seeds must not be empty")
        if self.timing not in TIMING_MODES:
            raise ConfigError(f"timing must be one of {', '.join(TIMING_MODES)}; got {self.timing!r}")
        if not isinstance(self.timing_repeats, int) or self.timing_repeats < 1:
            raise ConfigError(f"timing_repeats must be a positive integer; got {self.timing_repeats!r}")
        if self.engine not in ENGINES:
            raise ConfigError(f"engine must be one of {', '.join(ENGINES)}; got {self.engine!r}")
        if not isinstance(self.workers, int) or self.workers < 1:
            raise ConfigError(f"workers must be a positive integer; got {self.workers!r}")
        if self.device not in DEVICES:
            raise ConfigError(f"device must be one of {', '.join(DEVICES)}; got {self.device!r}")
        if self.params.device != "cpu" or any("device" in v for v in self.model_params.values()
                                               if isinstance(v, dict)):
            raise ConfigError("the device is set once, at the top of the config (device = "
                              "\"cuda\") or with --device, not among the parameters")
        if self.engine == "dask" and self.device != "cpu":
            raise ConfigError("device 'cuda' applies to the local engine; the Dask workers' "
                              "devices are not managed by ltrbench")
        if self.engine == "dask" and self.timing != "inprocess":
            raise ConfigError("--timing isolated applies to the local engine; a Dask fit runs "
                              "on the cluster's worker processes already")
        for model, values in self.model_params.items():
            if model in self.custom_models:
                raise ConfigError(f"model_params.{model}: {model!r} is a custom model; its "
                                  f"parameters go in [custom_models.{model}] params")
            expand_models([model])
            if not isinstance(values, dict):
                raise ConfigError(f"model_params.{model} must be a table of parameters")
            Params.from_dict({**_plain_params(self.params), **values})

    def _check_custom_models(self) -> None:
        """Custom models as :class:`CustomModel` (a factory reference or callable is resolved
        here), and only where they can run: in this process, trained as they are."""
        if not isinstance(self.custom_models, dict):
            raise ConfigError("custom_models must be a table of custom models")
        object.__setattr__(self, "custom_models", {
            str(n): v if isinstance(v, CustomModel) and v.name == n else custom_model(str(n), v)
            for n, v in self.custom_models.items()})
        used = [m for m in self.models if m in self.custom_models]
        if used and self.timing != "inprocess":
            raise ConfigError(f"custom model(s) {', '.join(used)}: timing {self.timing!r} is not "
                              "available for custom models (they are trained in this process)")
        if used and self.engine != "local":
            raise ConfigError(f"custom model(s) {', '.join(used)}: engine {self.engine!r} is not "
                              "available for custom models (they are trained in this process)")
        if used and self.permute_retrain:
            raise ConfigError(f"custom model(s) {', '.join(used)}: permute_retrain retrains the "
                              "library models only; leave it off or run the custom models apart")

    @property
    def custom_refs(self) -> dict[str, str]:
        """Custom model name -> factory reference (what :func:`expand_models` accepts)."""
        return {n: c.factory for n, c in self.custom_models.items()}

    def model_spec(self, model: str) -> ModelSpec:
        """The :class:`~bench.runners.registry.ModelSpec` of ``model``, a custom model included."""
        return get_model(model, self.custom_refs)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> RunConfig:
        """Build from a parsed TOML document; unknown keys raise a ConfigError naming the valid ones."""
        doc = dict(doc)
        if "run" in doc and isinstance(doc["run"], dict):  # also accept a [run] table
            doc = {**doc.pop("run"), **doc}
        for key in _SELECTION_KEYS:
            if key in doc:
                check_selection_split(str(doc[key]))
        if "select_on" in doc or "selection_split" in doc or "validation_split" in doc:
            doc.pop("select_on", None)
            doc.pop("selection_split", None)
            doc.pop("validation_split", None)
        valid = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - valid)
        if unknown:
            raise ConfigError(
                f"unknown config key(s) {', '.join(unknown)}; valid: {', '.join(sorted(valid))}"
            )
        kwargs: dict[str, Any] = {}
        for key, value in doc.items():
            if key == "params":
                kwargs[key] = Params.from_dict({**_plain_params(DEFAULT_RUN_PARAMS), **_table(value, "params")})
            elif key == "als":
                kwargs[key] = _als(_table(value, "als"))
            elif key == "model_params":
                kwargs[key] = {str(m): dict(_table(v, f"model_params.{m}")) for m, v in _table(value, key).items()}
            elif key == "custom_models":
                kwargs[key] = dict(_table(value, key))
            elif key == "models":
                custom = doc.get("custom_models")
                refs = {str(n): "" for n in custom} if isinstance(custom, dict) else None
                kwargs[key] = expand_models(value, refs)
            elif key == "metrics":
                kwargs[key] = expand_metrics(value)
            elif key == "seeds":
                kwargs[key] = parse_seeds(value)
            elif key == "eval_at":
                kwargs[key] = tuple(int(k) for k in value)
            else:
                kwargs[key] = value
        return cls(**kwargs)

    @classmethod
    def load(cls, path: str | Path) -> RunConfig:
        """Read a TOML config file (see the module docstring)."""
        try:
            return cls.from_dict(tomlio.read_toml(path))
        except ConfigError as exc:
            msg = str(exc)
            raise ConfigError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
        except TypeError as exc:
            raise ConfigError(f"{path}: {exc}") from None

    # -- resolution ---------------------------------------------------------------------------
    def resolved(self) -> RunConfig:
        """Quick limits applied, ``n_threads = 0`` replaced by this machine's CPU count."""
        params = self.params
        if self.quick:
            params = _quick(params)
        params = replace(params, n_threads=params.resolved_threads())
        return replace(self, params=params)

    def params_for(self, model: str, seed: int) -> Params:
        """The parameters ``model`` trains with for ``seed`` (per-model overrides, quick limits)."""
        params = self.params.with_overrides(**self.model_params.get(model, {}))
        if self.quick:
            params = _quick(params)
        return replace(params, seed=seed, n_threads=params.resolved_threads(), device=self.device)

    # -- output -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain values for TOML / JSON (``None`` values left out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "params":
                value = _plain_params(value)
            elif f.name == "als":
                value = asdict(value)
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
        """12 hex digits of the SHA-256 of the number-changing part of the config (canonical JSON)."""
        doc = {k: v for k, v in self.to_dict().items() if k not in _UNHASHED}
        if self.engine == "local":  # the default engine leaves the hash of earlier runs as it was
            doc.pop("engine", None)
            doc.pop("workers", None)
        if self.device == "cpu":  # so does the default device
            doc.pop("device", None)
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def check_selection_split(name: str) -> None:
    """Refuse any split but the validation split for early stopping / model selection."""
    if name != SELECTION_SPLIT:
        raise ConfigError(
            f"early stopping and model selection use the validation split only; got {name!r} "
            f"(valid: {SELECTION_SPLIT!r}). The test split is evaluated once, after training, "
            "and never chooses anything."
        )


def parse_seeds(value: Any) -> tuple[int, ...]:
    """Seeds from ``[0, 1, 2]``, ``"0,1,2"`` or ``"0-4"`` (a range)."""
    if isinstance(value, int):
        return (value,)
    if isinstance(value, str):
        items: list[int] = []
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            lo, sep, hi = part.partition("-")
            try:
                items.extend(range(int(lo), int(hi) + 1) if sep and lo else [int(part)])
            except ValueError:
                raise ConfigError(f"seeds: expected integers like 0,1,2 or 0-4, got {value!r}") from None
        value = items
    try:
        seeds = tuple(int(s) for s in value)
    except (TypeError, ValueError):
        raise ConfigError(f"seeds: expected a list of integers, got {value!r}") from None
    if not seeds:
        raise ConfigError("seeds must not be empty")
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"seeds repeat: {list(seeds)}")
    return seeds


def _table(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{name} must be a table")
    return value


def _als(values: dict[str, Any]) -> ALSParams:
    valid = {f.name for f in fields(ALSParams)}
    unknown = sorted(set(values) - valid)
    if unknown:
        raise ConfigError(f"unknown als key(s) {', '.join(unknown)}; valid: {', '.join(sorted(valid))}")
    return ALSParams(**values)


def _plain_params(p: Params) -> dict[str, Any]:
    d = p.to_dict()
    d.pop("device", None)  # owned by RunConfig.device
    for lib in RAW_TABLES:  # an empty table leaves the hash of earlier runs as it was
        if not d[lib]:
            d.pop(lib)
    return d


def _quick(p: Params) -> Params:
    return replace(p, **{k: min(getattr(p, k), v) for k, v in QUICK_LIMITS.items()})
