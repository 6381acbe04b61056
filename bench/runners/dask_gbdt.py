"""LambdaMART on a Dask cluster: ``xgboost.dask`` and ``lightgbm.DaskLGBMRanker``, selected on validation.

``train_dask(library, client, train, vali, params, objective=...)`` trains on query-aligned Dask
DataFrames (:mod:`bench.data.query_shards`: columns ``qid``, ``label``, features; every query
inside one partition, checked first) with the parameters of :mod:`bench.runners.params` -- the
same mapping as the local runners -- and chooses the iteration on the validation split only:

* **XGBoost** (``xgboost.dask.train`` over ``DaskDMatrix``): the library's own
  ``EarlyStopping`` on its validation ``ndcg@k``, which XGBoost all-reduces over the workers
  (a global metric, as in one process). Query ids are replaced by the query's number over
  the whole frame (partitions in order), so each worker's rows are sorted by query and no
  query is split: the safe equivalent of ``allow_group_split=True`` on aligned partitions
  (measured on a 2-worker local cluster: the default ``allow_group_split=False`` re-partitions
  to one partition per query, 36 minutes instead of about 68 s on 16,000 queries). Partitions are
  placed round-robin on the workers (:func:`bench.data.dask_cluster.spread`), and a validation
  split with fewer partitions than workers is refused: XGBoost 3.2 counts a worker whose
  validation matrix is empty as one more query with NDCG 1 (found here: 0.616 logged where the
  model's NDCG on the 12 validation queries is 0.586, the value XGBoost itself computes in one
  process).
* **LightGBM** (``DaskLGBMRanker``): its validation metric is computed by each worker on the
  part of the validation set it holds, never over the whole set, so it cannot drive early
  stopping. All ``n_trees`` trees are grown; afterwards the reference evaluator computes the
  validation ``ndcg@k`` under the ``lightgbm`` profile (equal to LightGBM's own metric, as the
  cross-check shows) after every tree, partition by partition, and early stopping's rule (stop
  after ``patience`` rounds without a strict improvement; the first maximum) is applied to that
  curve: the same choice early stopping would make, at the price of the trees it would not
  have grown (``trees_grown`` vs ``n_trees`` in the result). ``deterministic=True`` and the
  seed are set, partitions are placed round-robin, and worker ``i`` is LightGBM's rank ``i``
  (:mod:`bench.runners.lightgbm_network`: LightGBM's own choice of ranks changed from fit to
  fit, and with it the model), so LightGBM-Dask fits are reproducible fit to fit, as
  XGBoost's are (both tested).

Library threads are the workers' threads (``nthread`` / ``num_threads`` are not passed).
Which libraries and objectives train here, the parameters dropped, the train and predict
functions below and whether the metric is all-reduced are each library's record
(:class:`bench.runners.libraries.DaskSupport`, :func:`bench.runners.libraries.dask_support`):
another library on Dask is its record's ``dask`` and its own functions, no table here.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from bench.data.dask_cluster import (
    LOOPBACK,
    holders,
    is_loopback,
    spread,
    worker_addresses,
)
from bench.data.dask_watch import refuse_lost_workers, release_failed_step, watch_for_lost_workers
from bench.data.groups import group_index, offsets_from_qid, sizes_from_offsets
from bench.data.query_shards import QueryLayout, query_layout
from bench.errors import ConfigError, LtrbenchError, unknown
from bench.metrics.evaluate import query_parts
from bench.metrics.names import parse_metrics
from bench.metrics.profiles import get_profile
from bench.metrics.query_parts import QueryParts, combine, summarise
from bench.metrics.validate import prepare
from bench.runners.iteration import HookFailure, IterationHook
from bench.runners.libraries import LIBRARIES, dask_support, get_library, load
from bench.runners.lightgbm_network import UNPINNED, machine_ports, machines, ranks_in_worker_order
from bench.runners.params import Params
from bench.runners.result import Selection, library_eval_at

NON_FEATURES = ("qid", "label", "user", "item", "score")


@dataclass
class DaskFit:
    """A model trained on Dask: a local booster, the chosen iteration and how it was chosen.

    ``trees_grown``: trees trained; ``curve``: the validation metric after each; ``stopped_at``:
    where early stopping's rule stops on that curve (``best_iteration`` is the first maximum of
    ``curve[:stopped_at]``)."""

    library: str
    booster: Any
    library_params: dict[str, Any]
    best_iteration: int
    trees_grown: int
    curve: list[float]
    stopped_at: int
    select_metric: str
    fit_s: float
    features: list[str]
    notes: dict[str, Any] = field(default_factory=dict)
    history: dict[str, list[float]] = field(default_factory=dict)


def feature_columns(ddf: Any) -> list[str]:
    """The feature columns of a LETOR frame: every column but qid, label, user, item, score."""
    return [c for c in ddf.columns if c not in NON_FEATURES]


def stopping_point(curve: list[float], patience: int) -> tuple[int, int]:
    """``(trees early stopping grows, best iteration)`` (both 1-based counts) on a validation
    curve: a strict improvement resets the count; after ``patience`` rounds without one it stops;
    the best is the first maximum seen so far (``bench.runners.lightgbm``'s rule)."""
    best_value, best_i = -np.inf, -1
    for i, value in enumerate(curve):
        if value > best_value:
            best_value, best_i = value, i
        elif i - best_i >= patience:
            return i + 1, best_i + 1
    return len(curve), best_i + 1


def train_dask(library: str, client: Any, train: Any, vali: Any, params: Params, *,
               objective: str, select_metric: str = "ndcg@10",
               eval_at: tuple[int, ...] = (10,), callbacks: list[Any] | None = None,
               on_iteration: IterationHook | None = None) -> DaskFit:
    """Train ``library`` on the cluster of ``client``; see the module docstring.

    ``callbacks``: extra library callbacks, run on the workers (XGBoost ``TrainingCallback``
    objects, LightGBM callables). ``on_iteration``: the per-round hook
    (:data:`bench.runners.iteration.IterationHook`), called in this process as the workers'
    rounds end (:func:`relayed_iterations`). LightGBM's ``machines`` is built from the addresses of the
    workers holding training rows, each with a port found free on its host, and recorded in
    ``notes["machines"]``, worker ``i`` of them rank ``i`` (``notes["ranks"]``,
    :mod:`bench.runners.lightgbm_network`). (A fixed port range was tried: LightGBM still holds its ports when the
    next fit starts -- "Binding port ... failed" -- so every fit takes fresh ones.)
    """
    support = dask_support(library)
    if objective not in support.objectives:
        raise unknown(f"{library} objective on the Dask engine", objective, support.objectives)
    layouts = {"train": query_layout(train, where="train"), "vali": query_layout(vali, where="vali")}
    features = feature_columns(train)
    missing = [c for c in features if c not in vali.columns]
    if missing:
        raise ConfigError(f"vali lacks the training features {missing[:5]}")
    if params.learning_rate_decay > 0:
        raise ConfigError("learning_rate_decay is not available on the Dask engine (neither "
                          "library's Dask interface takes the per-round callback); use decay 0")
    ks = library_eval_at(Selection.parse(select_metric), eval_at)
    lib = load(get_library(library).params)(params, objective, eval_at=ks)
    for key in support.dropped:
        lib.pop(key, None)
    before = set(worker_addresses(client)) if client is not None else set()
    with (watch_for_lost_workers(client, before) as watch,
          relayed_iterations(client, library, select_metric, on_iteration) as (relay, failure)):
        lost: LtrbenchError | None = None
        try:
            fit: DaskFit = load(support.train)(client, train, vali, params, lib, select_metric,
                                               features, [*(callbacks or []), *relay], layouts)
        except Exception as exc:  # a lost worker is said as one, whatever the library raised
            lost = watch.lost_error(f"the {library} fit", exc)
            if lost is None:
                raise
        if lost is not None:  # raised here, where the library's error is no longer its context
            release_failed_step()
            raise lost
        failure.wait_for(fit.trees_grown)
    failure.reraise()
    if client is not None:  # (a test's stand-in trainer runs without a cluster)
        refuse_lost_workers(f"the {library} fit", before, set(worker_addresses(client)))
    return fit


# ------------------------------------------------------------------- the per-round heartbeat

#: Seconds this process waits, after a fit returns, for the workers' last round events.
RELAY_DRAIN_S = 2.0


class _Relay(HookFailure):
    """The hook, called with each round once (the first worker to report it), in round order;
    an exception it raises is kept (:class:`~bench.runners.iteration.HookFailure`) and raised
    after the fit: the fit runs on, since the call happens in the client's event thread."""

    def __init__(self, hook: IterationHook | None) -> None:
        super().__init__(hook or (lambda i, v: None))
        self.last = 0
        self.active = False  # subscribed: events are coming

    def event(self, event: Any) -> None:
        iteration, value = event[1]
        if iteration > self.last and self.error is None:
            self.last = int(iteration)
            self.call(int(iteration), float(value))

    def wait_for(self, rounds: int) -> None:
        """Wait (at most :data:`RELAY_DRAIN_S`) for the events of the fit's last rounds, which
        reach the client a moment after the fit returns."""
        end = time.monotonic() + RELAY_DRAIN_S
        while self.active and self.last < rounds and self.error is None and time.monotonic() < end:
            time.sleep(0.02)


def _send(topic: str, iteration: int, value: float) -> None:
    """On a worker: the round's event to the scheduler, which forwards it to the client."""
    from distributed import get_worker

    with contextlib.suppress(ValueError):  # not inside a worker: nothing to send
        get_worker().log_event(topic, (iteration, value))


def _xgboost_callback(topic: str, metric: str) -> Any:
    """An XGBoost ``TrainingCallback`` sending each round's all-reduced validation ``metric``
    from rank 0 (every worker holds the same value)."""
    import xgboost as xgb
    from xgboost import collective

    class Rounds(xgb.callback.TrainingCallback):
        def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
            if collective.get_rank() == 0:
                _send(topic, epoch + 1, float(evals_log["vali"][metric][-1]))
            return False

    return Rounds()


def _lightgbm_callback(topic: str, metric: str) -> Any:
    """A LightGBM callback sending each round's number; the value is NaN: LightGBM-Dask has no
    validation value during the fit (its metric is per worker; see the module docstring)."""
    def rounds(env: Any) -> None:
        _send(topic, int(env.iteration) + 1, float("nan"))

    rounds.order = 30  # type: ignore[attr-defined]  # after LightGBM's own callbacks
    return rounds


#: How each library's workers report a round (the Dask records' libraries; table, not ifs).
_ROUND_CALLBACKS: dict[str, Callable[[str, str], Any]] = {
    "xgboost": _xgboost_callback, "lightgbm": _lightgbm_callback}


@contextlib.contextmanager
def relayed_iterations(client: Any, library: str, metric: str,
                       hook: IterationHook | None) -> Iterator[tuple[list[Any], _Relay]]:
    """``(callbacks, relay)``: library callbacks that send each boosting round from the workers
    (Dask's ``Worker.log_event`` on a topic of this fit) and the relay that calls ``hook`` here
    as the client receives them (``Client.subscribe_topic``): the run's heartbeat during a
    distributed fit, as :func:`bench.runners.gbdt.train_gbdt` gives one locally. No hook, or a
    library without a round callback: no callback, no subscription."""
    relay = _Relay(hook)
    if hook is None or library not in _ROUND_CALLBACKS:
        yield [], relay
        return
    topic = f"ltrbench-rounds-{uuid.uuid4().hex}"
    client.subscribe_topic(topic, relay.event)
    relay.active = True
    try:
        yield [_ROUND_CALLBACKS[library](topic, metric)], relay
    finally:
        with contextlib.suppress(Exception):  # a cluster already gone: nothing to undo
            client.unsubscribe_topic(topic)


# ------------------------------------------------------------------------------------- XGBoost


def tracker_config(client: Any) -> Any:
    """XGBoost's collective config: on a loopback cluster its tracker binds ``127.0.0.1``.

    Without it ``xgboost.dask._get_rabit_args`` (3.2) first tries ``RabitTracker(host_ip=None)``,
    which binds the address ``GetHostAddress`` guesses (``src/collective/tracker.cc``: the
    machine's external address), and only falls back to the scheduler's host when that fails.
    A remote scheduler keeps XGBoost's own choice (``None``)."""
    from xgboost.collective import Config

    host = urlparse(str(client.scheduler.address)).hostname or ""
    return Config(tracker_host_ip=LOOPBACK) if is_loopback(f"{host}:0") else None


def _group_key(frame: pd.DataFrame, first: list[int],
               partition_info: dict[str, Any] | None = None) -> pd.Series:
    """The query's number over the whole frame (queries counted in partition order): sorted, one
    value per query, below 2^32 (XGBoost keeps ``qid`` as a 32-bit unsigned integer)."""
    offsets, _ = offsets_from_qid(frame["qid"].to_numpy())
    base = first[0 if partition_info is None else int(partition_info["number"])]
    return pd.Series(base + group_index(offsets), index=frame.index, name="group_key")


def train_xgboost(client: Any, train: Any, vali: Any, params: Params, lib: dict[str, Any],
                  select_metric: str, features: list[str], extra: list[Any],
                  layouts: dict[str, QueryLayout]) -> DaskFit:
    """XGBoost on Dask (its record's :attr:`~bench.runners.libraries.DaskSupport.train`; see
    the module docstring)."""
    import xgboost as xgb
    import xgboost.dask as dxgb

    workers = worker_addresses(client)
    if vali.npartitions < len(workers):
        raise ConfigError(
            f"vali has {vali.npartitions} partition(s) for {len(workers)} workers: XGBoost counts "
            "a worker with an empty validation matrix as a query with NDCG 1 in its all-reduced "
            "metric (measured: 0.616 instead of 0.586 on 12 queries), so early stopping would "
            "read a wrong number; write the validation split in at least as many shards as "
            "there are workers")
    train, vali = spread(client, train), spread(client, vali)
    if holders(client, vali) != set(workers):
        raise ConfigError("some workers hold no validation rows after spreading the partitions")

    def matrix(ddf: Any, layout: QueryLayout) -> Any:
        counts = np.asarray(layout.queries, dtype=np.int64)
        if int(counts.sum()) >= 1 << 32:
            raise ConfigError(f"{int(counts.sum()):,} queries: XGBoost numbers queries with 32 bits")
        first = np.concatenate([[0], np.cumsum(counts)[:-1]]).tolist()
        key = ddf.map_partitions(_group_key, first, meta=("group_key", "int64"))
        return dxgb.DaskDMatrix(client, ddf[features], ddf["label"], qid=key)

    t0 = time.perf_counter()
    dtrain, dvali = matrix(train, layouts["train"]), matrix(vali, layouts["vali"])
    out = dxgb.train(
        client, dict(lib), dtrain, num_boost_round=params.n_trees, evals=[(dvali, "vali")],
        verbose_eval=False, coll_cfg=tracker_config(client),
        callbacks=[xgb.callback.EarlyStopping(rounds=params.early_stopping_rounds,
                                              metric_name=select_metric, data_name="vali",
                                              maximize=True, save_best=False), *extra],
    )
    fit_s = time.perf_counter() - t0
    curve = [float(v) for v in out["history"]["vali"][select_metric]]
    history = {k: [float(v) for v in vals] for k, vals in out["history"]["vali"].items()}
    return DaskFit("xgboost", out["booster"], lib, int(np.argmax(curve)) + 1, len(curve), curve,
                   len(curve), select_metric, fit_s, features,
                   {"selection": "XGBoost EarlyStopping on its all-reduced validation metric",
                    "tracker_host": LOOPBACK if tracker_config(client) else "XGBoost's choice"},
                   history)


# ------------------------------------------------------------------------------------ LightGBM


def _group_sizes(q: pd.Series) -> pd.Series:
    """LightGBM's ``group`` of one partition: its query sizes in row order."""
    return pd.Series(sizes_from_offsets(offsets_from_qid(q.to_numpy())[0]), dtype="int64")


def train_lightgbm(client: Any, train: Any, vali: Any, params: Params, lib: dict[str, Any],
                   select_metric: str, features: list[str], extra: list[Any],
                   layouts: dict[str, QueryLayout]) -> DaskFit:
    """LightGBM on Dask (its record's :attr:`~bench.runners.libraries.DaskSupport.train`;
    ``layouts`` unused: LightGBM takes per-partition group sizes)."""
    import lightgbm as lgb

    workers = worker_addresses(client)
    train = spread(client, train)
    held = holders(client, train)
    if len(held) != min(train.npartitions, len(workers)):  # a worker lost while spreading
        refuse_lost_workers("the lightgbm fit", set(workers), held)
    ports = machine_ports(client, sorted(held))
    lib["machines"] = machines(ports)
    t0 = time.perf_counter()
    group = train["qid"].map_partitions(_group_sizes, meta=("qid", "int64"))
    model = lgb.DaskLGBMRanker(client=client, n_estimators=params.n_trees, **lib)
    with ranks_in_worker_order(ports, client) as pinned:
        model.fit(train[features], train["label"], group=group,
                  **({"callbacks": extra} if extra else {}))
    fit_s = time.perf_counter() - t0
    booster = model.to_local().booster_
    curve = validation_curve(booster, vali, features, select_metric, profile="lightgbm")
    grown, best = stopping_point(curve, params.early_stopping_rounds)
    notes = {"machines": lib["machines"],
             "ranks": "worker i of the sorted worker list is rank i" if pinned else UNPINNED,
             "selection": ("reference evaluator, profile lightgbm, on the whole validation split "
                           f"after every tree; early stopping's rule would have grown {grown} trees")}
    return DaskFit("lightgbm", booster, lib, best, params.n_trees, curve, grown, select_metric,
                   fit_s, features, notes)


def _curve_parts(frame: pd.DataFrame, booster: Any, features: list[str], metric: str,
                 profile: str) -> list[QueryParts] | None:
    if frame.shape[0] == 0:
        return None
    X = frame[features].to_numpy(dtype=np.float32)
    prep_base = prepare(frame["label"].to_numpy(np.float64), np.zeros(frame.shape[0]),
                        qid=frame["qid"].to_numpy(), group=None, weights=None, threads=1)
    specs, prof = parse_metrics(metric), get_profile(profile)
    scores = np.zeros(frame.shape[0], dtype=np.float64)
    out = []
    for i in range(booster.num_trees()):
        scores += booster.predict(X, start_iteration=i, num_iteration=1, raw_score=True)
        prep_base.scores[:] = scores
        out.append(query_parts(prep_base, specs, prof, threads=1))
    return out


def validation_curve(booster: Any, vali: Any, features: list[str], metric: str, *,
                     profile: str) -> list[float]:
    """``metric`` on the whole validation frame after each tree (1..T), under ``profile``,
    evaluated partition by partition and combined exactly (:mod:`bench.metrics.query_parts`)."""
    import dask

    specs, prof = parse_metrics(metric), get_profile(profile)
    tasks = [dask.delayed(_curve_parts)(d, booster, features, metric, profile)
             for d in vali.to_delayed()]
    per_partition = [p for p in dask.compute(*tasks) if p is not None]
    n_trees = len(per_partition[0]) if per_partition else 0
    name = specs[0].name
    return [summarise(combine([p[i] for p in per_partition]), specs, prof).metrics[name]
            for i in range(n_trees)]


# ------------------------------------------------------------------------------------ scoring


def predict_xgboost(fit: DaskFit, X: np.ndarray) -> Any:
    """XGBoost's margin of ``X`` up to the chosen iteration (run on a worker)."""
    import xgboost as xgb

    return fit.booster.predict(xgb.DMatrix(X, feature_names=fit.features), output_margin=True,
                               iteration_range=(0, fit.best_iteration))


def predict_lightgbm(fit: DaskFit, X: np.ndarray) -> Any:
    """LightGBM's raw score of ``X`` up to the chosen iteration (run on a worker)."""
    return fit.booster.predict(X, num_iteration=fit.best_iteration, raw_score=True)


def _predict_partition(frame: pd.DataFrame, fit: DaskFit,
                       predict: Callable[[DaskFit, np.ndarray], Any]) -> pd.Series:
    X = frame[fit.features].to_numpy(dtype=np.float32)
    s = predict(fit, X)
    return pd.Series(np.asarray(s, dtype=np.float64), index=frame.index, name="score")


def predict_frame(fit: DaskFit, ddf: Any) -> Any:
    """``ddf`` with a ``score`` column: the model's scores at its chosen iteration, computed on
    the workers partition by partition (the booster travels, the rows stay)."""
    predict = load(dask_support(fit.library).predict)  # resolved once, sent with the booster
    scores = ddf.map_partitions(_predict_partition, fit, predict, meta=("score", "f8"))
    return ddf.assign(score=scores)


# ------------------------------------------------------------------ the libraries' Dask records


def on_dask(library: str, objective: str) -> bool:
    """Whether the model ``<library>-<objective>`` trains on the Dask engine (its library's
    record declares :attr:`~bench.runners.libraries.Library.dask` with that objective)."""
    lib = LIBRARIES.get(library)
    return lib is not None and lib.dask is not None and objective in lib.dask.objectives


__all__ = [
    "DaskFit",
    "feature_columns",
    "on_dask",
    "predict_frame",
    "predict_lightgbm",
    "predict_xgboost",
    "stopping_point",
    "train_dask",
    "train_lightgbm",
    "train_xgboost",
    "validation_curve",
]
