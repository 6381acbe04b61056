"""The GBDT libraries ltrbench trains: one :class:`Library` record each, the only owner of their facts.

A record says everything the rest of the package needs to know about a library: its import and
distribution names (what the manifest records), how to install it, the devices it trains on (and
how to check a CUDA build, what to install for one), its objectives (so its model names,
``<library>-<objective>``, its LambdaMART model and its ``--models`` alias), its limits beyond the
shared :data:`bench.runners.params.PARAM_SPECS` (its raw ``[params.<library>]`` table is keyed by
its name), the profile that reproduces its built-in metric, and where its code lives: the
fit/predict module (:mod:`bench.runners.gbdt`), the :class:`~bench.runners.params.Params`
translator, the raw-parameter probe (:mod:`bench.runners.param_probe`) and the built-in metric
provider (a :class:`bench.runners.metric_provider.MetricProvider`, :meth:`Library.provider`) and,
for a library the Dask engine trains, its :class:`DaskSupport`. Code is named by import path
(``"module:attribute"``) and imported only when used (:func:`load`), so reading a record imports
no GBDT library (nor numpy: the module imports nothing of the package but its errors).

Every reader (the model registry, dispatch, params validation, the device check, the manifest,
the cross-check's providers, the run readers) looks the record up here at call time, so adding a
library is one :class:`Library` in :data:`LIBRARIES` plus its module (and its profile in
:mod:`bench.metrics.profiles`); ``tests/test_runners_libraries.py`` registers a fourth one to keep
that true.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from bench.errors import ConfigError, unknown
from bench.runners.search_dimension import (
    MIN_ROWS,
    RATE,
    SAMPLING,
    Dimension,
    choice,
    float_range,
    int_range,
)


@dataclass(frozen=True)
class Objective:
    """A training objective of a library: ltrbench's ``name`` (the model is
    ``<library>-<name>``), the library's own name for it (``native``), the model's one-line
    description, and ``ignores``: (ltrbench field, why) of the shared parameters this objective
    does not read (its library does, for another objective): a model's own table setting one
    trained the same model as without it (the library's predictions equal to the bit).
    Refused like :attr:`Library.ignores` (:func:`bench.runners.raw_keys.refuse_ignored`).
    ``seed_free``: the objective draws no random number, so with ``subsample = colsample = 1``
    (and no raw parameter) every seed trains the same model (probed: predictions equal to the
    bit for seeds 0 and 1; LightGBM's rank_xendcg draws its gammas, CatBoost its permutations)."""

    name: str
    native: str
    description: str
    ignores: tuple[tuple[str, str], ...] = ()
    seed_free: bool = False


@dataclass(frozen=True)
class Limit:
    """A library's own range of a shared :class:`~bench.runners.params.Params` field, narrower
    than :data:`~bench.runners.params.PARAM_SPECS` (``lo`` and ``hi`` inclusive), and where the
    library says so (checked as a :class:`~bench.data.toml.Spec` of the field's kind)."""

    name: str
    lo: float | None = None
    hi: float | None = None
    source: str = ""
    #: 0 itself is accepted too (the parameter's "off"), below ``lo``
    zero: bool = False


#: XGBoost keeps these as float32 (``src/tree/param.h`` ``TrainParam``) and refuses a value
#: other than 0 below FLT_MIN (probed: 1e-40, 1e-50 end in "Out of range value for reg_alpha").
_XGB_FLOAT32 = ("XGBoost keeps {0} as a float32 (src/tree/param.h TrainParam) and refuses a "
                "value below FLT_MIN other than 0 ('Out of range value for {0}', probed): "
                "0 (off) or at least 1.1754944e-38")


@dataclass(frozen=True)
class DaskSupport:
    """How a library trains on the Dask engine (:mod:`bench.runners.dask_gbdt`).

    ``objectives``: those trained on Dask (XGBoost's ``rank:map`` with its binarised labels and
    the regression baselines are not: the benchmark trains those models locally and says so);
    ``dropped``: keys of the record's :class:`~bench.runners.params.Params` translator not passed
    on Dask (threads are the workers'; LightGBM's per-worker metric is not used); ``train`` and
    ``predict``: ``"module:attribute"`` of the distributed fit ``(client, train, vali, params,
    library_params, select_metric, features, callbacks, layouts) -> DaskFit`` and of the scorer
    ``(fit, X) -> scores`` run on a worker; ``global_metric``: the library all-reduces its
    validation metric over the workers (then its log is the run's eval log; otherwise the
    reference evaluator's curve goes to the notes)."""

    objectives: tuple[str, ...]
    dropped: tuple[str, ...]
    train: str
    predict: str
    global_metric: bool


@dataclass(frozen=True)
class Library:
    """Everything ltrbench knows about one GBDT library (see the module docstring).

    ``module``: the fit/predict module (``fit``, ``predict``, :mod:`bench.runners.gbdt`);
    ``params``, ``probe``, ``metrics``, ``cuda_build``: ``"module:attribute"`` of the
    :class:`~bench.runners.params.Params` translator ``(params, objective) -> dict``, the raw
    parameter probe ``(dict) -> None`` (raises what the library refuses), the built-in metric
    provider class, and the CUDA-build check ``() -> bool``. ``samples_rows``: its ``subsample``
    draws rows, and a draw with none fails (:func:`bench.runners.params.check_rows`). ``dask``:
    how the Dask engine trains it (``None``: it has no Dask trainer, its models train locally).
    ``owned``: the raw parameters ltrbench sets itself, each group of a key and its aliases with
    what sets it; a ``[params.<library>]`` table may not name them (the run would record one
    model and train another). ``space``: what ``ltrbench tune`` searches by default (ltrbench
    parameter names, ``<library>.<key>`` for a raw one; ranges and sources:
    :mod:`bench.benchmark.search_space`); empty: the library cannot be tuned without ``--space``.
    ``shadowed``: (library key or alias, the ltrbench field that sets it) pairs a raw table may
    not name either (:mod:`bench.runners.raw_keys`); ``names``: ``"module:attribute"`` of
    ``() -> {alias: main name}``, the library's own alias list, when it has one.
    """

    name: str
    title: str
    module: str
    objectives: tuple[Objective, ...]
    lambdamart: str
    alias: str
    profile: str
    params: str
    probe: str
    metrics: str
    import_name: str
    distributions: tuple[str, ...]
    install: str
    version_from_import: bool = False
    devices: tuple[str, ...] = ("cpu",)
    cuda_build: str | None = None
    cuda_install: str = ""
    limits: tuple[Limit, ...] = ()
    #: (ltrbench field, why) of the shared parameters this library has no counterpart of (the
    #: "(none)" cells of :data:`bench.runners.params.PARITY`): refused in a model's own table
    ignores: tuple[tuple[str, str], ...] = ()
    samples_rows: bool = False
    dask: DaskSupport | None = None
    owned: tuple[tuple[tuple[str, ...], str], ...] = ()
    space: tuple[Dimension, ...] = ()
    shadowed: tuple[tuple[str, str], ...] = ()
    names: str | None = None
    #: (main names, why) of the raw parameters the library takes without a word and does not
    #: use when it trains from Python as ltrbench does (its command-line program's files, its
    #: prediction task): refused in a raw table, the model would train as without them
    #: (:func:`bench.runners.raw_keys.check_raw_keys`; aliases through :attr:`names`)
    inert: tuple[tuple[tuple[str, ...], str], ...] = ()
    #: (raw main name, the value the parity table matches, its row) of raw keys that change what
    #: a row of :data:`bench.runners.params.PARITY` matches: trained, and said in the run and the
    #: model's notes (:func:`bench.runners.raw_keys.unmatched`)
    unmatched: tuple[tuple[str, Any, str], ...] = ()

    def model(self, objective: str) -> str:
        """The model name of ``objective``: ``<library>-<objective>`` (runs record the library
        besides; only a run folder without those records is read by the name's prefix,
        :func:`bench.runs.models.model_libraries`)."""
        return f"{self.name}-{objective}"

    def native_objective(self, objective: str) -> str:
        """The library's own name of an ltrbench objective; a ConfigError lists the valid ones."""
        for o in self.objectives:
            if o.name == objective:
                return o.native
        raise ConfigError(f"unknown {self.title} objective {objective!r}; valid: "
                          f"{', '.join(o.name for o in self.objectives)}")

    def seed_free(self, objective: str) -> bool:
        """Whether ``objective`` draws no random number (:attr:`Objective.seed_free`)."""
        return any(o.name == objective and o.seed_free for o in self.objectives)

    def ignored(self, objective: str | None = None) -> dict[str, str]:
        """(ltrbench field -> why) of the shared parameters a model of ``objective`` does not
        read: the library's :attr:`ignores`, then the objective's own (:attr:`Objective.ignores`;
        ``None``: the library's only)."""
        out = dict(self.ignores)
        for o in self.objectives:
            if o.name == objective:
                out.update(o.ignores)
        return out

    def provider(self) -> type[Any]:
        """The built-in metric provider class, a
        :class:`~bench.runners.metric_provider.MetricProvider` (:attr:`metrics`, imported now;
        importing it imports no GBDT library: a provider imports its library when it is built).
        Typed ``type[Any]``: the base class's module imports this one."""
        cls: type[Any] = load(self.metrics)
        return cls


def _no_pairs(title: str, native: str, ranker: str) -> tuple[tuple[str, str], ...]:
    """What an objective without pairs or lambdas (``native`` of ``title``) does not read."""
    return (("truncation_level", f"{title}'s {native} samples no pairs (the pair truncation is "
             f"read by {ranker} only)"),
            ("lambdarank_norm", f"{title}'s {native} normalises no lambdas (read by {ranker} "
             "only)"))


def _no_norm(native: str) -> tuple[tuple[str, str], ...]:
    """CatBoost's ``norm`` is an option of ``LambdaMart`` only."""
    return (("lambdarank_norm", f"CatBoost's {native} has no lambda normalisation (norm is an "
             "option of LambdaMart only: LambdaMart:norm=...)"),)


_R = "bench.runners"
#: The GBDT libraries, in the order models, tables and manifests list them.
LIBRARIES: dict[str, Library] = {lib.name: lib for lib in (
    Library(
        name="lightgbm", title="LightGBM", module=f"{_R}.lightgbm",
        objectives=(
            Objective("lambdarank", "lambdarank", "LightGBM LambdaMART (objective=lambdarank)",
                      seed_free=True),
            Objective("xendcg", "rank_xendcg", "LightGBM XE-NDCG-MART (objective=rank_xendcg)",
                      ignores=_no_pairs("LightGBM", "rank_xendcg", "lambdarank")),
            Objective("regression", "regression", "LightGBM pointwise L2 regression on the labels",
                      ignores=_no_pairs("LightGBM", "regression", "lambdarank"), seed_free=True),
        ),
        lambdamart="lambdarank", alias="lambdarank", profile="lightgbm",
        params=f"{_R}.params:lightgbm_params", probe=f"{_R}.param_probe:probe_lightgbm",
        metrics="bench.crosscheck.providers:LightGBMMetrics",
        import_name="lightgbm", distributions=("lightgbm",), version_from_import=True,
        install="pip install lightgbm",
        devices=("cpu", "cuda"), cuda_build=f"{_R}.device:lightgbm_cuda_build",
        cuda_install=("a CUDA build of LightGBM: pip install lightgbm --no-binary lightgbm "
                      "--config-settings=cmake.define.USE_CUDA=ON (needs the CUDA toolkit)"),
        samples_rows=True,
        # LightGBM's aliases: docs/Parameters.rst (objective, metric, eval_at, seed, num_threads)
        owned=((("objective", "objective_type", "app", "application", "loss"),
                "the model name (lightgbm-lambdarank, lightgbm-xendcg, lightgbm-regression)"),
               (("metric", "metrics", "metric_types", "eval_at", "ndcg_eval_at", "ndcg_at",
                 "map_eval_at", "map_at"), "select_metric and eval_at"),
               (("seed", "random_seed", "random_state"), "the run's seeds"),
               # LightGBM derives these from seed unless one is set (docs/Parameters.rst
               # "seed": "lower priority ... overridden if you set other seeds explicitly"):
               # set, it is the same for every run seed, so the seeds no longer differ there
               (("bagging_seed", "bagging_fraction_seed", "feature_fraction_seed",
                 "data_random_seed", "data_seed", "extra_seed", "drop_seed", "objective_seed"),
                "the run's seeds (LightGBM derives this seed from seed; one given here would "
                "be the same for every run seed)"),
               # lightgbm_params sets bagging_freq from subsample: 0 here disabled the bagging
               # a run with subsample = 0.8 recorded
               (("bagging_freq", "subsample_freq"),
                "[params] subsample (bagging_freq = 1 when subsample < 1, else 0)"),
               (("num_threads", "num_thread", "nthread", "nthreads", "n_jobs"),
                "[params] n_threads (--threads)"),
               (("device_type", "device"), "device (--device)"),
               # the (determinism) row: false let LightGBM pick a histogram layout by timing
               (("deterministic", "force_row_wise", "force_col_wise"), "the parity table's "
                "(determinism) row: deterministic = true, force_row_wise = true (bit-identical "
                "reruns)"),
               (("boosting", "boosting_type", "boost"), "the model: gradient-boosted trees "
                "(boosting=gbdt; DART rescales earlier trees as it adds new ones, so the model "
                "cut at the early-stopping iteration is not the one scored)")),
        # the main names lightgbm_params passes; aliases from LightGBM's own list (names)
        shadowed=(("num_iterations", "n_trees"), ("learning_rate", "learning_rate"),
                  ("num_leaves", "num_leaves"), ("max_depth", "max_depth"),
                  ("max_bin", "max_bin"), ("min_sum_hessian_in_leaf", "min_child_weight"),
                  ("min_data_in_leaf", "min_data_in_leaf"),
                  ("min_gain_to_split", "min_split_gain"), ("bagging_fraction", "subsample"),
                  ("feature_fraction", "colsample"), ("lambda_l1", "l1"), ("lambda_l2", "l2"),
                  ("lambdarank_truncation_level", "truncation_level"),
                  ("lambdarank_norm", "lambdarank_norm"), ("label_gain", "label_gain"),
                  ("early_stopping_round", "early_stopping_rounds")),
        names=f"{_R}.param_probe:lightgbm_names",
        # docs/Parameters.rst: "can be used only in CLI version", the data-file columns, and
        # the prediction task's parameters (Booster.predict takes its own keyword arguments);
        # each trained the same model, probed (lightgbm 4.6: predictions equal to the bit)
        inert=((("task", "data", "valid", "input_model", "output_model", "snapshot_freq",
                 "output_result", "convert_model_language", "convert_model",
                 "saved_feature_importance_type", "save_binary"),
                "a parameter of LightGBM's command-line program (its files and tasks); "
                "lightgbm.train takes it and does nothing with it"),
               (("header", "label_column", "weight_column", "group_column", "ignore_column",
                 "two_round", "precise_float_parser", "parser_config_file"),
                "read by LightGBM only when it loads a data file itself (ltrbench gives it "
                "the split's arrays)"),
               (("start_iteration_predict", "num_iteration_predict", "predict_raw_score",
                 "predict_leaf_index", "predict_contrib", "predict_disable_shape_check",
                 "pred_early_stop", "pred_early_stop_freq", "pred_early_stop_margin"),
                "a parameter of LightGBM's prediction task; training ignores it, and ltrbench "
                "scores with the early-stopping iteration's trees, raw scores")),
        dask=DaskSupport(objectives=("lambdarank", "xendcg"),
                         dropped=("num_threads", "metric", "eval_at"),
                         train=f"{_R}.dask_gbdt:train_lightgbm",
                         predict=f"{_R}.dask_gbdt:predict_lightgbm", global_metric=False),
        unmatched=(("bagging_by_query", False, "subsample"), ("sigmoid", 1.0, "min_child_weight"),
                   ("feature_fraction_bynode", 1.0, "colsample")),
        space=(int_range("num_leaves", 7, 255, log=True), RATE, MIN_ROWS, *SAMPLING,
               float_range("min_child_weight", 1e-3, 10.0, log=True),
               float_range("l1", 1e-8, 10.0, log=True), float_range("l2", 1e-8, 10.0, log=True),
               float_range("min_split_gain", 0.0, 1.0),
               int_range("truncation_level", 10, 100, log=True)),  # lambdarank_truncation_level
    ),
    Library(
        name="xgboost", title="XGBoost", module=f"{_R}.xgboost",
        objectives=(
            Objective("ndcg", "rank:ndcg", "XGBoost LambdaMART (objective=rank:ndcg)",
                      seed_free=True),
            Objective("pairwise", "rank:pairwise",
                      "XGBoost RankNet-style pairwise (objective=rank:pairwise)", seed_free=True),
            Objective("map", "rank:map",
                      "XGBoost LambdaMART for MAP (objective=rank:map; trained on label >= 1)",
                      seed_free=True),
            Objective("regression", "reg:squarederror",
                      "XGBoost pointwise L2 regression (objective=reg:squarederror)",
                      ignores=_no_pairs("XGBoost", "reg:squarederror", "rank:*"), seed_free=True),
        ),
        lambdamart="ndcg", alias="ndcg", profile="xgboost",
        params=f"{_R}.params:xgboost_params", probe=f"{_R}.param_probe:probe_xgboost",
        metrics="bench.crosscheck.providers:XGBoostMetrics",
        # the module's own version: ltrbench installs the xgboost-cpu distribution
        import_name="xgboost", distributions=("xgboost", "xgboost-cpu"), version_from_import=True,
        install="pip install xgboost-cpu (or xgboost, the build with CUDA)",
        devices=("cpu", "cuda"), cuda_build=f"{_R}.device:xgboost_cuda_build",
        ignores=(("min_data_in_leaf", "XGBoost has no minimum row count per leaf; its "
                  "min_child_weight bounds the hessian"),),
        limits=(Limit("colsample", 1.1754944e-38, None,
                      source="XGBoost 3.2 refuses the float32 1.17549435e-38 ('Out of range "
                      "value', probed)"),
                Limit("learning_rate", 1.1754944e-38, None,
                      source="XGBoost keeps eta as a float32 (src/tree/param.h TrainParam): a "
                      "smaller rate becomes 0 or a subnormal there, a model that learns nothing "
                      "from a rate recorded as > 0; FLT_MIN itself, 1.1754943508222875e-38, is "
                      "read back as 1.17549421e-38 and refused ('Out of range value', probed)"),
                *(Limit(name, 1.1754944e-38, None, source=_XGB_FLOAT32.format(own), zero=True)
                  for name, own in (("l1", "reg_alpha"), ("l2", "reg_lambda"),
                                    ("min_split_gain", "min_split_loss"),
                                    ("min_child_weight", "min_child_weight")))),
        cuda_install=("the full XGBoost wheel in place of the CPU-only one ltrbench installs: "
                      "pip uninstall -y xgboost-cpu && pip install xgboost (its Linux x86_64 "
                      "wheels are built with CUDA)"),
        owned=((("objective",), "the model name (xgboost-ndcg, xgboost-pairwise, ...)"),
               (("eval_metric",), "select_metric and eval_at"),
               (("seed", "random_state"), "the run's seeds"),
               (("nthread", "n_jobs"), "[params] n_threads (--threads)"),
               (("device",), "device (--device)"),
               (("verbosity",), "quiet fits (verbosity = 0): XGBoost's debug monitor "
                "prints on standard output when a booster is freed, after its fit, into "
                "--format json"),
               # the num_leaves row of the parity table: leaf-wise on histograms, as LightGBM
               (("grow_policy", "tree_method"), "[params] num_leaves (max_leaves with "
                "grow_policy = lossguide and tree_method = hist: trees grown leaf-wise on "
                "histograms, as LightGBM's; depthwise grows level by level)"),
               (("booster",), "the model: gradient-boosted trees (booster=gbtree; DART "
                "rescales earlier trees as it adds new ones, so the model cut at the "
                "early-stopping iteration is not the one scored)")),
        # what xgboost_params passes, and the aliases of src/tree/param.h (DMLC_DECLARE_ALIAS)
        shadowed=(("eta", "learning_rate"), ("learning_rate", "learning_rate"),
                  ("max_leaves", "num_leaves"), ("max_depth", "max_depth"),
                  ("max_bin", "max_bin"), ("min_child_weight", "min_child_weight"),
                  ("gamma", "min_split_gain"), ("min_split_loss", "min_split_gain"),
                  ("subsample", "subsample"), ("colsample_bytree", "colsample"),
                  ("alpha", "l1"), ("reg_alpha", "l1"), ("lambda", "l2"), ("reg_lambda", "l2"),
                  ("lambdarank_num_pair_per_sample", "truncation_level"),
                  ("lambdarank_normalization", "lambdarank_norm"),
                  ("lambdarank_score_normalization", "lambdarank_norm"),
                  ("ndcg_exp_gain", "label_gain")),
        unmatched=(("lambdarank_pair_method", "topk", "truncation_level"),
                   ("colsample_bynode", 1.0, "colsample"), ("colsample_bylevel", 1.0, "colsample"),
                   ("sampling_method", "uniform", "subsample")),
        dask=DaskSupport(objectives=("ndcg", "pairwise"), dropped=("nthread",),
                         train=f"{_R}.dask_gbdt:train_xgboost",
                         predict=f"{_R}.dask_gbdt:predict_xgboost", global_metric=True),
        space=(int_range("num_leaves", 7, 255, log=True), RATE, *SAMPLING,
               float_range("min_child_weight", 1e-3, 10.0, log=True),
               float_range("l1", 1e-8, 10.0, log=True), float_range("l2", 1e-8, 10.0, log=True),
               float_range("min_split_gain", 0.0, 1.0),  # gamma
               int_range("truncation_level", 4, 64, log=True),  # lambdarank_num_pair_per_sample
               choice("xgboost.lambdarank_pair_method", "topk", "mean")),
    ),
    Library(
        name="catboost", title="CatBoost", module=f"{_R}.catboost",
        objectives=(
            Objective("yetirank", "YetiRank",
                      "CatBoost YetiRank (loss_function=YetiRank, Gulin, Kuralenok & Pavlov 2011)",
                      ignores=_no_norm("YetiRank")),
            Objective("pairlogit", "PairLogit",
                      "CatBoost pairwise logistic loss (loss_function=PairLogit)",
                      ignores=_no_norm("PairLogit")),
            Objective("queryrmse", "QueryRMSE",
                      "CatBoost per-query-centred RMSE (loss_function=QueryRMSE)",
                      ignores=_no_norm("QueryRMSE")),
            Objective("lambdamart", "LambdaMart",
                      "CatBoost LambdaMART (loss_function=LambdaMart:metric=NDCG)"),
        ),
        # LambdaMart is the matched objective (and on the default synthetic data it fits faster
        # than YetiRank, 3.8 s against 5.9 s a seed); the bare name expands to YetiRank, its own
        # ranking loss and the one its ranking benchmark leads with.
        lambdamart="lambdamart", alias="yetirank", profile="catboost",
        params=f"{_R}.params:catboost_params", probe=f"{_R}.param_probe:probe_catboost",
        metrics="bench.crosscheck.providers:CatBoostMetrics",
        import_name="catboost", distributions=("catboost",), install="pip install catboost",
        cuda_install=("nothing yet: ltrbench's CatBoost runner trains on the CPU only (leave the "
                      "catboost-* models out of a cuda run)"),
        ignores=(("min_child_weight", "CatBoost has no minimum hessian per leaf"),
                 ("min_split_gain", "CatBoost has no minimum split gain"),
                 ("l1", "CatBoost has no L1 leaf penalty"),
                 ("truncation_level", "YetiRank, PairLogit and LambdaMart pick their pairs "
                  "their own way")),
        limits=(Limit("max_bin", 2, 65536, source="CatBoost: border_count = max_bin - 1 <= 65535 "
                      "(binarization_options.cpp)"),
                Limit("num_leaves", 2, 65536,
                      source="CatBoost: Lossguide max_leaves <= 65536 "
                      "(oblivious_tree_options.cpp:132)"),
                Limit("learning_rate", 1.1920930376163597e-07, None,
                      source="CatBoost 1.2: a float32 rate above FLT_EPSILON "
                      "(boosting_options.cpp:79, probed)"),
                Limit("max_depth", -1, 16,
                      source="CatBoost: 'Maximum tree depth is 16' (oblivious_tree_options.cpp:128; "
                      "-1 or 0: no limit, depth 16)")),
        samples_rows=True,
        owned=((("loss_function", "objective"), "the model name (catboost-yetirank, ...)"),
               (("eval_metric", "custom_metric", "custom_loss"), "select_metric and eval_at"),
               (("random_seed", "random_state"), "the run's seeds"),
               (("thread_count",), "[params] n_threads (--threads)"),
               # the subsample and num_leaves rows of the parity table
               (("bootstrap_type",), "[params] subsample (bootstrap_type = Bernoulli: rows "
                "sampled one by one, as LightGBM and XGBoost do; MVS or Bayesian sample "
                "otherwise)"),
               (("grow_policy",), "[params] num_leaves (max_leaves with grow_policy = "
                "Lossguide: trees grown leaf-wise, as LightGBM's)"),
               (("task_type", "devices"), "device (--device; CatBoost trains on the CPU here)"),
               (("od_type", "od_pval", "use_best_model", "best_model_min_trees", "eval_fraction"),
                "early_stopping_rounds: k rounds without an improvement on the validation "
                "split (eval_set), and the first best iteration of its log"),
               (("target_border",), "the labels (target_border binarises them: the loss's and "
                "the NDCG's)"),
               # metric_period = 5 logged rounds 0, 5, 10, ...: the log's 4th value was read
               # as round 4 (catboost docs: "the frequency of iterations to calculate metrics")
               (("metric_period", "verbose", "verbose_eval", "logging_level", "silent"),
                "early_stopping_rounds and the validation log of every round (the best "
                "iteration is read from it round by round), written by silent fits"),
               (("allow_writing_files", "train_dir", "save_snapshot", "snapshot_file",
                 "snapshot_interval", "json_log", "learn_error_log", "test_error_log",
                 "profile_log", "time_left_log", "output_borders"), "nothing: ltrbench's "
                "CatBoost fits write no files (a snapshot file is resumed by the next fit)")),
        # what catboost_params passes, and its aliases (catboost/private/libs/options/)
        shadowed=(("iterations", "n_trees"), ("num_boost_round", "n_trees"),
                  ("n_estimators", "n_trees"), ("num_trees", "n_trees"),
                  ("learning_rate", "learning_rate"), ("eta", "learning_rate"),
                  ("max_leaves", "num_leaves"), ("num_leaves", "num_leaves"),
                  ("depth", "max_depth"), ("max_depth", "max_depth"),
                  ("border_count", "max_bin"), ("max_bin", "max_bin"),
                  ("min_data_in_leaf", "min_data_in_leaf"),
                  ("min_child_samples", "min_data_in_leaf"), ("subsample", "subsample"),
                  ("rsm", "colsample"), ("colsample_bylevel", "colsample"),
                  ("l2_leaf_reg", "l2"), ("reg_lambda", "l2"),
                  ("early_stopping_rounds", "early_stopping_rounds"),
                  ("od_wait", "early_stopping_rounds")),
        unmatched=(("sampling_unit", "Object", "subsample"),),
        space=(int_range("num_leaves", 7, 64, log=True), RATE, MIN_ROWS, *SAMPLING,
               float_range("l2", 1e-3, 10.0, log=True),  # l2_leaf_reg
               float_range("catboost.random_strength", 1e-3, 10.0, log=True)),
    ),
)}


def get_library(name: str) -> Library:
    """The record of the GBDT library ``name``; a ConfigError lists the valid names."""
    try:
        return LIBRARIES[name]
    except (KeyError, TypeError):
        raise unknown("library", name, LIBRARIES) from None


def gbdt_libraries() -> tuple[str, ...]:
    """The names of the GBDT libraries declared now (read at call time, never cached)."""
    return tuple(LIBRARIES)


def dask_libraries() -> tuple[str, ...]:
    """The names of the declared libraries the Dask engine trains (a record with
    :attr:`Library.dask`), in declaration order, read at call time."""
    return tuple(name for name, lib in LIBRARIES.items() if lib.dask is not None)


def dask_support(library: str) -> DaskSupport:
    """How the Dask engine trains ``library`` (its record's :attr:`Library.dask`); a library
    without one is the one "unknown" error (:func:`bench.errors.unknown`) listing those with
    one."""
    lib = LIBRARIES.get(library) if isinstance(library, str) else None
    if lib is not None and lib.dask is None:  # a known library: no "did you mean" another one
        raise ConfigError(f"{lib.title} has no Dask trainer; the Dask engine trains "
                          f"{', '.join(dask_libraries())} (train {library} with the local engine)")
    if lib is None or lib.dask is None:
        raise unknown("library on the Dask engine", library, dask_libraries())
    return lib.dask


def library_of_model(model: str) -> str:
    """The library part of a model name: the prefix before the first '-' (``lightgbm-lambdarank``
    -> ``lightgbm``; a name without '-' is its own). The rule of :meth:`Library.model`, applied
    only to run folders that record no library (:func:`bench.runs.models.model_libraries`): a
    user's model may be named ``lightgbm-mine`` and is still ``custom``."""
    return str(model).split("-", 1)[0]


def load(path: str) -> Any:
    """The object at ``"module:attribute"`` (or the module at ``"module"``), imported now."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def load_module(library: str) -> Any:
    """The fit/predict module of ``library`` (imported on use: a GBDT library loads lazily). A
    library that is not installed is a ConfigError that says how to install it."""
    lib = get_library(library)
    try:
        return load(lib.module)
    except ModuleNotFoundError as exc:
        if exc.name != lib.import_name:
            raise
        raise ConfigError(f"{lib.title} is not installed; {lib.install}") from None
