"""One parameter set for every GBDT library, and the parity table that says how it maps.

A :class:`Params` names each knob once; :func:`lightgbm_params`, :func:`xgboost_params` and
:func:`catboost_params` translate it into the keyword dictionaries that ``lightgbm.train``,
``xgboost.train`` and ``catboost.CatBoost`` receive. :data:`PARITY` lists every row of that translation with what it does not make equal
(see :func:`parity_markdown` for the README table). Parameter names were checked against
lightgbm 4.7.0 (``include/LightGBM/config.h`` and the resolved ``parameters:`` block of a saved
model), xgboost 3.2.0 (``Booster.save_config()``) and catboost 1.2.10 (``get_all_params()``),
and the tests read them back from all three.

Sources for the objective-level rows: LightGBM ``src/objective/rank_objective.hpp`` (pairs with
the higher document in the top ``lambdarank_truncation_level`` of the current ranking; when
``lambdarank_norm`` is set, ΔNDCG is divided by ``0.01 + |Δscore|`` and a query's lambdas are
scaled by ``log2(1 + Σλ) / Σλ``); XGBoost ``src/objective/lambdarank_obj.h``/``.cc`` (with
``lambdarank_pair_method=topk``, pairs ``(i, j)`` with ``i < lambdarank_num_pair_per_sample``,
``j > i`` in the current ranking; ``lambdarank_score_normalization`` divides Δmetric by
``|Δscore| + 0.01``, ``lambdarank_normalization`` applies the same ``log2(1 + Σλ) / Σλ`` factor,
"first used by LightGBM").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bench.data.frozen import frozen, thawed
from bench.data.python_args import plain_deep, plain_scalar
from bench.data.toml import FLOAT64_TINY, Spec, canonical, canonical_raw, table, unknown_key
from bench.errors import ConfigError
from bench.machine import usable_cpus
from bench.runners.libraries import LIBRARIES, gbdt_libraries, get_library, load
from bench.runners.param_checks import check_raw_value, check_schedule_floor
from bench.runners.param_checks import check_rows as check_rows  # re-exported
from bench.runners.param_checks import lowest_rate as lowest_rate
from bench.runners.param_ranges import DEVICES as DEVICES  # the range table's names, re-exported
from bench.runners.param_ranges import LABEL_GAINS as LABEL_GAINS
from bench.runners.param_ranges import MAX_LABEL as MAX_LABEL
from bench.runners.param_ranges import PARAM_SPECS as PARAM_SPECS
from bench.runners.param_ranges import SPECS_BY_NAME
from bench.runners.param_ranges import param_spec as param_spec
from bench.runners.raw_keys import check_raw_keys, library_spelling

#: The raw library tables (``[params.<library>]``) of the libraries declared at import (one
#: declared later is seen by :func:`~bench.runners.libraries.gbdt_libraries`, read at call time).
RAW_TABLES: tuple[str, ...] = gbdt_libraries()
#: A library's raw parameters: ``(key, value)`` pairs sorted by key.
RawTable = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Params:
    """Hyper-parameters shared by the LightGBM, XGBoost and CatBoost runners.

    Defaults are LightGBM's own defaults where the libraries differ (except ``n_threads`` and the
    tree count, chosen so that the default benchmark runs in about a minute on 2 cores).
    ``raw`` holds each library's raw parameters, ``((library, ((key, value), ...)), ...)``,
    applied last (an escape hatch: the TOML ``[params.<library>]`` tables; recorded in the run
    config like everything else); :meth:`raw_params` reads one library's, :meth:`with_overrides`
    sets them by library name (``p.with_overrides(lightgbm={"min_data_in_bin": 7})``).

    Learning-rate schedule: at boosting round ``i`` (0-based) the rate is
    ``max(learning_rate_min, learning_rate - learning_rate_decay * i)`` (the schedule LightGBM's
    own ``test_lambdarank`` uses: ``max(0.01, 0.1 - 0.01 * i)``); ``learning_rate_decay = 0`` means
    a constant rate.
    """

    n_trees: int = 100
    learning_rate: float = 0.1
    learning_rate_decay: float = 0.0
    learning_rate_min: float = 0.0
    num_leaves: int = 31
    max_depth: int = -1
    max_bin: int = 255
    min_child_weight: float = 1e-3
    min_data_in_leaf: int = 20
    min_split_gain: float = 0.0
    subsample: float = 1.0
    colsample: float = 1.0
    l1: float = 0.0
    l2: float = 0.0
    truncation_level: int = 30
    label_gain: str = "exp2"
    lambdarank_norm: bool = True
    early_stopping_rounds: int = 20
    n_threads: int = 2
    seed: int = 0
    device: str = "cpu"
    raw: tuple[tuple[str, RawTable], ...] = field(default=())

    def __post_init__(self) -> None:
        for spec in PARAM_SPECS:  # np.int64(5), an IntEnum member: the plain value, as a file's
            object.__setattr__(self, spec.name, plain_scalar(getattr(self, spec.name)))
        object.__setattr__(self, "raw", plain_deep(self.raw))  # its shape checked below
        check_params(self)
        for spec in PARAM_SPECS:  # one form per value: l1 = 0, 0.0 and -0.0 are 0.0
            object.__setattr__(self, spec.name, canonical(getattr(self, spec.name), spec.kind))
        # one spelling of the same tables: libraries and keys sorted, empty tables dropped, each value canonical (-0.0 is 0.0; 1 and 1.0 stay apart) and read-only
        object.__setattr__(self, "raw", tuple(sorted(
            (lib, tuple(sorted((k, frozen(canonical_raw(v), f"[params.{lib}] {k}", "use with_overrides"))
                               for k, v in items))) for lib, items in self.raw if items)))

    @classmethod
    def from_dict(cls, values: Mapping[str, Any], *, where: str = "") -> Params:
        """Build from a TOML ``[params]`` table, each value checked against :data:`PARAM_SPECS`
        (no coercion); an error names the key after ``where`` (``"[params] "``), an unknown key
        the closest valid name."""
        return cls(**check_param_values(values, where=where))

    def raw_params(self, library: str) -> dict[str, Any]:
        """The raw parameters of ``library`` (empty when none were given)."""
        return thawed(dict(dict(self.raw).get(library, ())))  # type: ignore[no-any-return]

    def to_dict(self) -> dict[str, Any]:
        """Plain values, then one raw table (a dict) per library, declared ones first even when
        empty, for TOML/JSON (``[params.<library>]``)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "raw"}
        for lib in dict.fromkeys([*gbdt_libraries(), *(lib for lib, _ in self.raw)]):
            out[lib] = self.raw_params(lib)
        return out

    def with_overrides(self, **changes: Any) -> Params:
        """A copy with some fields changed; a library's name sets its raw table (a dict is merged
        into the table, a tuple of pairs replaces it)."""
        raw: dict[str, Any] = dict(changes.pop("raw", self.raw))
        for lib in [k for k in changes if k in gbdt_libraries()]:
            value = changes.pop(lib)
            if isinstance(value, Mapping):
                value = tuple(sorted({**dict(raw.get(lib, ())), **value}.items()))
            raw[lib] = value
        return replace(self, **changes, raw=tuple(raw.items()))

    def resolved_threads(self) -> int:
        """``n_threads``, with 0 resolved to the CPUs this process may use (:func:`bench.machine.usable_cpus`)."""
        return self.n_threads or usable_cpus()

    def learning_rate_at(self, iteration: int) -> float:
        """Learning rate of boosting round ``iteration`` (0-based)."""
        return max(self.learning_rate_min, self.learning_rate - self.learning_rate_decay * iteration)


def canonical_table(values: Mapping[str, Any]) -> dict[str, Any]:
    """A checked ``[params]`` / ``[model_params.<model>]`` table with each value in its
    canonical form (:func:`~bench.data.toml.canonical`, raw tables
    :func:`~bench.data.toml.canonical_raw`), keys in the order given: what the run trains,
    records and hashes, so ``l1 = 0`` and ``l1 = -0.0`` are one config; an empty raw table
    (it sets nothing) left out, as :class:`Params` leaves it out."""
    libraries = gbdt_libraries()
    return {k: {n: canonical_raw(v) for n, v in table(value, k).items()} if k in libraries
            else canonical(value, SPECS_BY_NAME[k].kind) if k in SPECS_BY_NAME else value
            for k, value in values.items() if not (k in libraries and value == {})}


def check_param_values(values: Mapping[str, Any], *, where: str = "",
                       library: str | None = None) -> dict[str, Any]:
    """Keyword arguments of :class:`Params` from plain values (a TOML table): names known,
    each value of its declared type and in its range, each library's raw table (a key named
    after a library of :mod:`bench.runners.libraries`) in ``raw`` as sorted tuples.
    Errors name the key after ``where`` (``"[model_params.xgboost-ndcg] "``); a library's own
    spelling of a key (of ``library``, the model's, first) says what it is
    (:func:`~bench.runners.raw_keys.library_spelling`)."""
    libraries = gbdt_libraries()
    known = [*(f.name for f in fields(Params) if f.name != "raw"), *libraries]
    out: dict[str, Any] = {}
    raw: list[tuple[str, RawTable]] = []
    for key, value in table(values, where.strip() or "params").items():
        if key in libraries:
            items = table(value, f"{where}{key}")
            for name, item in items.items():
                check_raw_value(item, f"{where}{key} {name}")
            raw.append((key, tuple(sorted(items.items()))))
        elif key in SPECS_BY_NAME:
            out[key] = SPECS_BY_NAME[key].check(value, f"{where}{key}")
        else:
            raise library_spelling(key, where, library, known) or unknown_key(
                where, key, known, noun="parameter")
    if raw:
        out["raw"] = tuple(raw)
    return out


def check_params(p: Params, where: str = "") -> None:
    """Every field of ``p`` against :data:`PARAM_SPECS`, a choice as spelled (``"Linear"`` trains
    ``linear``); the learning-rate schedule where the rounds are known (:func:`check_schedule`)."""
    for spec in PARAM_SPECS:
        value = spec.check(getattr(p, spec.name), f"{where}{spec.name}")
        if spec.choices:  # Params(label_gain="Linear") trains and records 'linear', said once
            object.__setattr__(p, spec.name, value)
    _check_raw(p.raw, where)


def check_schedule(p: Params, where: str = "") -> None:
    """The schedule of the parameters that train (their ``n_trees`` rounds, quick mode's cap
    applied by the caller): a decaying rate must stay above 0 for every round (LightGBM refuses
    ``learning_rate <= 0`` in ``reset_parameter``, ``config_auto.cpp``) and at least the
    smallest normal float64. :func:`check_for_library` and the trainers' door
    (:func:`bench.runners.gbdt.train_gbdt`) call it."""
    if p.learning_rate_decay > 0 and p.learning_rate_min <= 0 \
            and p.learning_rate - p.learning_rate_decay * (p.n_trees - 1) <= 0:
        raise ConfigError(f"{where}learning_rate_min: expected a number > 0 with "
                          f"learning_rate_decay = {p.learning_rate_decay!r} (the rate would reach "
                          f"0 before round {p.n_trees}; LightGBM refuses learning_rate <= 0)")
    check_schedule_floor(p, FLOAT64_TINY, "the smallest normal float64: a subnormal rate keeps "
                         "fewer significant bits than the leaves it shrinks", where)


def _check_raw(raw: Any, where: str) -> None:
    """``raw`` is ``((library, ((key, value), ...)), ...)`` over declared libraries."""
    if not isinstance(raw, tuple) or not all(isinstance(t, tuple) and len(t) == 2 for t in raw):
        raise ConfigError(f"{where}raw: expected ((library, table), ...) of raw parameters")
    for lib, items in raw:
        if lib not in LIBRARIES:
            raise ConfigError(f"{where}{lib}: not a library; valid: {', '.join(gbdt_libraries())}")
        if not isinstance(items, tuple) or not all(isinstance(kv, tuple) and len(kv) == 2 and
                                                   isinstance(kv[0], str) for kv in items):
            raise ConfigError(f"{where}{lib}: expected a table of raw {lib} parameters")
        for key, value in items:
            check_raw_value(value, f"{where}{lib} {key}")


def check_for_library(p: Params, library: str, objective: str, where: str = "") -> None:
    """What ``library`` refuses of ``p`` beyond :data:`PARAM_SPECS`, before any data: its own
    limits (:attr:`~bench.runners.libraries.Library.limits`) and what its parameter builder
    refuses (CatBoost: a rate schedule, a GPU); raw parameters go to its probe. Not a GBDT
    library (a baseline, a custom model): nothing to check."""
    lib = LIBRARIES.get(library)
    if lib is None:
        return
    for limit in lib.limits:
        if limit.zero and getattr(p, limit.name) == 0:
            continue  # off: accepted below the limit's lo
        spec = Spec(limit.name, SPECS_BY_NAME[limit.name].kind, limit.lo, limit.hi, source=limit.source)
        spec.check(getattr(p, limit.name), f"{where}{limit.name}")
        if limit.name == "learning_rate" and limit.lo is not None:
            check_schedule_floor(p, limit.lo, f"{lib.title}'s floor: {limit.source}", where)
    check_raw_keys(library, p.raw_params(library), where)  # owned or shadowed keys
    # the device is checked with the machine (bench.runners.device)
    kwargs = load(lib.params)(replace(p, device="cpu"), objective)  # CatBoost: no schedule
    check_schedule(p, where)
    if p.raw_params(library):  # raw parameters: only the library knows them
        from bench.runners.param_probe import probe_library_params

        probe_library_params(library, kwargs, where=f"{where}{library}",
                             keys=tuple(sorted(p.raw_params(library))))


def label_gain_table(kind: str) -> list[float]:
    """Gain of each label 0..30: ``exp2`` → 2^l − 1 (LightGBM's default table), ``linear`` → l."""
    if kind == "exp2":
        return [float(2**lab - 1) for lab in range(MAX_LABEL + 1)]
    if kind == "linear":
        return [float(lab) for lab in range(MAX_LABEL + 1)]
    raise ConfigError(f"unknown label_gain {kind!r}; valid: {', '.join(LABEL_GAINS)}")


def lightgbm_params(p: Params, objective: str, *, eval_at: tuple[int, ...] = (1, 3, 5, 10)) -> dict[str, Any]:
    """The ``params`` dictionary for ``lightgbm.train`` (see :data:`PARITY`).

    ``objective`` is an ltrbench objective name (``lambdarank``, ``xendcg``, ``regression``).
    The evaluation metric is always LightGBM's ``ndcg`` at ``eval_at`` (the regression baseline is
    selected on validation NDCG too, so every model is chosen by the same rule).
    """
    out: dict[str, Any] = {
        "objective": get_library("lightgbm").native_objective(objective),
        "boosting": "gbdt",
        "learning_rate": p.learning_rate,
        "num_leaves": p.num_leaves,
        "max_depth": p.max_depth,
        "max_bin": p.max_bin,
        "min_sum_hessian_in_leaf": p.min_child_weight,
        "min_data_in_leaf": p.min_data_in_leaf,
        "min_gain_to_split": p.min_split_gain,
        "bagging_fraction": p.subsample,
        "bagging_freq": 1 if p.subsample < 1.0 else 0,
        "feature_fraction": p.colsample,
        "lambda_l1": p.l1,
        "lambda_l2": p.l2,
        "lambdarank_truncation_level": p.truncation_level,
        "lambdarank_norm": p.lambdarank_norm,
        "label_gain": label_gain_table(p.label_gain),
        "metric": ["ndcg"],
        "eval_at": list(eval_at),
        "num_threads": p.resolved_threads(),
        "seed": p.seed,
        "deterministic": True,
        "force_row_wise": True,
        "verbosity": -1,
    }
    if p.device == "cuda":  # a CUDA build of LightGBM (bench.runners.device checks it)
        out["device_type"] = "cuda"
        del out["force_row_wise"]  # a CPU histogram layout
    out.update(p.raw_params("lightgbm"))
    return out


def xgboost_params(p: Params, objective: str, *, eval_at: tuple[int, ...] = (1, 3, 5, 10)) -> dict[str, Any]:
    """The ``params`` dictionary for ``xgboost.train`` (see :data:`PARITY`).

    ``objective`` is an ltrbench objective name (``ndcg``, ``pairwise``, ``map``, ``regression``).
    The tree count is ``num_boost_round``, an argument of ``xgboost.train``, not a parameter.
    """
    out: dict[str, Any] = {
        "objective": get_library("xgboost").native_objective(objective),
        "booster": "gbtree",
        "tree_method": "hist",
        "grow_policy": "lossguide",
        "max_leaves": p.num_leaves,
        "max_depth": 0 if p.max_depth < 0 else p.max_depth,
        "eta": p.learning_rate,
        "max_bin": p.max_bin,
        "min_child_weight": p.min_child_weight,
        "gamma": p.min_split_gain,
        "subsample": p.subsample,
        "colsample_bytree": p.colsample,
        "alpha": p.l1,
        "lambda": p.l2,
        "lambdarank_pair_method": "topk",
        "lambdarank_num_pair_per_sample": p.truncation_level,
        "lambdarank_normalization": p.lambdarank_norm,
        "lambdarank_score_normalization": p.lambdarank_norm,
        "ndcg_exp_gain": p.label_gain == "exp2",
        "eval_metric": [f"ndcg@{k}" for k in eval_at],
        "nthread": p.resolved_threads(),
        "seed": p.seed,
        "verbosity": 0,
    }
    if p.device == "cuda":
        out["device"] = "cuda"
    out.update(p.raw_params("xgboost"))
    return out


#: CatBoost's deepest tree (``depth`` <= 16): what ``max_depth = -1`` or ``0`` (no limit)
#: becomes (CatBoost's own depth 0 is a tree of one leaf: a constant model).
CATBOOST_MAX_DEPTH = 16


def catboost_metric(k: int, label_gain: str = "exp2", *, train: bool = False) -> str:
    """CatBoost's name of ltrbench's ``ndcg@k``: ``NDCG:top=k;type=Exp`` (gain 2^l - 1) or
    ``type=Base`` (gain l), ``denominator=LogPosition`` (CatBoost's default, 1/log2(rank + 1);
    ``catboost/libs/metrics/dcg.cpp`` ``FillDcgDecay``). ``train=True`` adds
    ``hints=skip_train~false``: CatBoost skips ranking metrics on the learn set otherwise."""
    kind = "Exp" if label_gain == "exp2" else "Base"
    return f"NDCG:top={k};type={kind}" + (";hints=skip_train~false" if train else "")


def catboost_params(p: Params, objective: str, *, eval_at: tuple[int, ...] = (1, 3, 5, 10),
                    select_k: int = 10, log_train: bool = True) -> dict[str, Any]:
    """The parameters of ``catboost.CatBoost(params)`` (see :data:`PARITY`, column CatBoost).

    ``objective`` is an ltrbench objective name (``yetirank``, ``pairlogit``, ``queryrmse``,
    ``lambdamart``). The eval metric (the one CatBoost's early stopping watches) is
    :func:`catboost_metric` at ``select_k``; the other cutoffs of ``eval_at`` are custom metrics.
    Trees grow leaf-wise (``grow_policy="Lossguide"``, CatBoost's non-symmetric trees) so that
    ``num_leaves`` means what it means for LightGBM; rows are sampled one by one
    (``bootstrap_type="Bernoulli"``). Refused (ConfigError): a learning-rate schedule (CatBoost
    has no per-round rate) and ``device="cuda"``.
    """
    if p.learning_rate_decay > 0:
        raise ConfigError("CatBoost has no per-round learning rate: learning_rate_decay must be 0")
    if p.device != "cpu":
        raise ConfigError("ltrbench trains CatBoost on the CPU only (device 'cpu')")
    loss = get_library("catboost").native_objective(objective)
    if objective == "lambdamart":  # its NDCG's gain, as LightGBM's label_gain and XGBoost's
        loss += (f":metric=NDCG;type={'Exp' if p.label_gain == 'exp2' else 'Base'};"  # Base
                 f"norm={'true' if p.lambdarank_norm else 'false'}")  # (linear) by default
    others = [catboost_metric(k, p.label_gain, train=log_train) for k in eval_at if k != select_k]
    out: dict[str, Any] = {
        "loss_function": loss,
        "iterations": p.n_trees,
        "learning_rate": p.learning_rate,
        "grow_policy": "Lossguide",
        "max_leaves": p.num_leaves,
        "depth": CATBOOST_MAX_DEPTH if p.max_depth <= 0 else p.max_depth,
        "border_count": p.max_bin - 1,  # k borders cut k + 1 bins: max_bin bins
        "min_data_in_leaf": p.min_data_in_leaf,
        "l2_leaf_reg": p.l2,
        "bootstrap_type": "Bernoulli",
        "subsample": p.subsample,
        "rsm": p.colsample,
        "eval_metric": catboost_metric(select_k, p.label_gain, train=log_train),
        "custom_metric": others,
        "early_stopping_rounds": p.early_stopping_rounds,
        "use_best_model": False,
        "random_seed": p.seed,
        "thread_count": p.resolved_threads(),
        "verbose": False,
        "allow_writing_files": False,
    }
    out.update(p.raw_params("catboost"))
    return out


@dataclass(frozen=True)
class ParityRow:
    """One row of the parity table: an ltrbench name, what each library receives, the caveat,
    what changes on the Dask engine (:mod:`bench.runners.dask_gbdt`; empty: the same), and
    what CatBoost receives, with its caveat after " -- " (:func:`catboost_params`)."""

    ltrbench: str
    lightgbm: str
    xgboost: str
    note: str
    dask: str = ""
    catboost: str = ""


PARITY: tuple[ParityRow, ...] = (
    ParityRow("device = cpu | cuda", "device_type = cuda (only a CUDA build: pip wheels have none; "
              "'gpu' is the OpenCL build); force_row_wise dropped",
              "device = cuda (the xgboost wheel, not xgboost-cpu, has CUDA)",
              "float32 gradient histograms on the GPU in both: results may differ from the CPU "
              "fit in the last bits, then in splits (bench.runners.device checks the build and "
              "that a GPU is visible before any data are loaded)",
              "cuda refused: the Dask workers' devices are not managed here",
              catboost="cpu only -- cuda refused (task_type=GPU is not wired up here)"),
    ParityRow("n_trees", "num_boost_round (lgb.train)", "num_boost_round (xgb.train)",
              "an upper bound: early stopping on the validation split picks the iteration used",
              "LightGBM: DaskLGBMRanker(n_estimators) grows all of them (see early stopping); "
              "XGBoost: xgboost.dask.train(num_boost_round)",
              catboost="iterations -- an upper bound, as for the others"),
    ParityRow("learning_rate", "learning_rate", "eta", "",
              catboost="learning_rate"),
    ParityRow("learning_rate_decay, learning_rate_min", "lightgbm.reset_parameter callback",
              "ltrbench callback setting eta before each round",
              "round i uses max(min, lr - decay*i); decay 0 = constant. (xgboost's "
              "LearningRateScheduler sets the rate after a round: off by one)",
              "not available (refused): decay 0 only",
              catboost="(none) -- refused: decay 0 only"),
    ParityRow("num_leaves", "num_leaves",
              "max_leaves + grow_policy=lossguide + tree_method=hist",
              "both grow leaf-wise (best-first) on histograms",
              catboost="max_leaves + grow_policy=Lossguide -- leaf-wise; CatBoost's default symmetric trees are not used"),
    ParityRow("max_depth", "max_depth (-1 = none)", "max_depth (0 = none under lossguide)", "",
              catboost="depth (-1 = 16, CatBoost's deepest) -- Lossguide's own default depth is 6"),
    ParityRow("max_bin", "max_bin", "max_bin",
              "bin boundaries differ: LightGBM bins from a 200,000-row sample "
              "(bin_construct_sample_cnt), XGBoost from a weighted quantile sketch of all rows",
              "LightGBM: each rank finds the bins of its share of the features from its own rows; "
              "XGBoost: the workers' sketches are merged. Both depend on which worker holds which "
              "rows",
              catboost="border_count = max_bin - 1 -- k borders cut k + 1 bins, so max_bin - 1 "
              "borders give the max_bin bins LightGBM and XGBoost use (CatBoost's own default, "
              "254, is this at max_bin = 255); borders from CatBoost's GreedyLogSum grid, not "
              "quantiles"),
    ParityRow("min_child_weight", "min_sum_hessian_in_leaf", "min_child_weight",
              "same number, different scale: XGBoost's pairwise hessian is 2·σ(1−σ)·|Δ| "
              "(lambdarank_obj.h), LightGBM's σ(1−σ)·|Δ| with sigmoid=1",
              catboost="(none) -- CatBoost has no minimum hessian per leaf"),
    ParityRow("min_data_in_leaf", "min_data_in_leaf", "(none)",
              "XGBoost has no minimum row count per leaf; only the hessian bound applies",
              catboost="min_data_in_leaf"),
    ParityRow("min_split_gain", "min_gain_to_split", "gamma (min_split_loss)", "",
              catboost="(none) -- CatBoost has no minimum split gain"),
    ParityRow("subsample", "bagging_fraction + bagging_freq=1 (0 when subsample = 1)", "subsample",
              "rows are sampled one by one in both (not whole queries); different RNGs",
              catboost="subsample + bootstrap_type=Bernoulli -- rows one by one (sampling_unit=Object)"),
    ParityRow("colsample", "feature_fraction", "colsample_bytree",
              "per tree in both; of n features LightGBM keeps round(n x colsample) (half up), "
              "XGBoost floor(n x colsample), each at least 1: 0.8 of 46 features is 37 against "
              "36 (LightGBM counts only the features it could bin)",
              catboost="rsm -- features sampled per split level, not per tree"),
    ParityRow("l1", "lambda_l1", "alpha (reg_alpha)", "",
              catboost="(none) -- CatBoost has no L1 leaf penalty"),
    ParityRow("l2", "lambda_l2", "lambda (reg_lambda)",
              "XGBoost's own default is 1, LightGBM's 0; ltrbench passes the same value to both",
              catboost="l2_leaf_reg -- CatBoost's own default is 3"),
    ParityRow("truncation_level", "lambdarank_truncation_level",
              "lambdarank_num_pair_per_sample + lambdarank_pair_method=topk",
              "pairs (i, j) with i in the top k of the current ranking and j below it, in both",
              catboost="(none) -- YetiRank / PairLogit / LambdaMart pick pairs their own way"),
    ParityRow("label_gain = exp2 | linear", "label_gain = [2^l-1] | [l], l = 0..30",
              "ndcg_exp_gain = true | false",
              "used by the objective and by each library's NDCG metric",
              catboost="eval metric NDCG:type=Exp | type=Base; LambdaMart:metric=NDCG;type=Exp | "
              "type=Base -- YetiRank, PairLogit and QueryRMSE have no gain table"),
    ParityRow("lambdarank_norm", "lambdarank_norm",
              "lambdarank_normalization + lambdarank_score_normalization",
              "both divide ΔNDCG by 0.01+|Δscore| and scale lambdas by log2(1+Σλ)/Σλ",
              catboost="LambdaMart:norm=true|false -- LambdaMart only"),
    ParityRow("objective lambdarank / xendcg / regression", "lambdarank / rank_xendcg / regression",
              "rank:ndcg / (none) / reg:squarederror",
              "XGBoost also runs rank:pairwise and rank:map (binary labels: label >= 1)",
              catboost="YetiRank, PairLogit, QueryRMSE, LambdaMart -- catboost-yetirank, -pairlogit, -queryrmse, -lambdamart"),
    ParityRow("eval_at", "metric=ndcg, eval_at", "eval_metric = ndcg@k, ...",
              "the library's own NDCG, logged on train and validation every round",
              "LightGBM: not passed (it would score each worker's share only); XGBoost: the "
              "validation NDCG all-reduced over the workers",
              catboost="eval_metric / custom_metric = NDCG:top=k;type=Exp -- hints=skip_train~false logs train too"),
    ParityRow("early_stopping_rounds", "ltrbench callback on validation ndcg@10",
              "xgboost.callback.EarlyStopping(data_name='vali')",
              "stop after k rounds without a strict improvement; best = first maximum",
              "LightGBM: the same rule applied after training to the reference evaluator's "
              "validation curve (profile lightgbm) after every tree; XGBoost: the same callback",
              catboost="early_stopping_rounds on eval_set=vali, use_best_model=false -- best = first maximum of the log"),
    ParityRow("n_threads", "num_threads", "nthread", "pinned; 0 = every core, resolved and recorded",
              "not passed: each worker's threads (recorded in the manifest's cluster)",
              catboost="thread_count"),
    ParityRow("seed", "seed (derives bagging, feature-fraction and objective seeds)", "seed", "",
              catboost="random_seed -- also YetiRank's random permutations"),
    ParityRow("(determinism)", "deterministic=true, force_row_wise=true",
              "(CPU hist is deterministic for a fixed nthread)",
              "bit-identical reruns on the same machine, versions and thread count",
              "reproducible on a fixed cluster (partitions placed round-robin; LightGBM's "
              "rank i is worker i, not its own choice) -- both tested",
              catboost="random_seed, thread_count -- two fits with one seed give the same model (tested)"),
)


def parity_markdown(*, catboost: bool = False) -> str:
    """:data:`PARITY` as a Markdown table (for the README); ``catboost=True`` adds the CatBoost
    column (what it receives -- its caveat)."""
    head = ["ltrbench", "LightGBM", "XGBoost", "note", "Dask engine"] + (["CatBoost"] if catboost else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in PARITY:
        cells = [row.ltrbench, row.lightgbm, row.xgboost, row.note, row.dask or "same"]
        if catboost:
            cells.append(row.catboost)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
