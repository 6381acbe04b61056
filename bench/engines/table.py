"""The engines ltrbench runs its work on: one :class:`Engine` record each, the only place an
engine is chosen (``run``, ``evaluate`` and ``convert`` read :data:`ENGINES`).

An engine says where the work runs: ``local`` in this process (and its children), ``dask`` on a
Dask cluster. A record holds the engine's name and one-line description, whether it runs on a
cluster (the ``--scheduler`` / ``--workers`` options apply), how its cluster is opened and closed
(a context manager of :class:`ClusterOptions`: clusters are opened here, in this layer, never by
a command), and its entry points for the three paths, each a :class:`typing.Protocol` below:

* :class:`TrainerFactory` -> :class:`Trainer` (``run``: every (model, seed) trained; called as
  :func:`bench.runners.dispatch.run_model` is, plus ``record`` and ``close``);
* :class:`Evaluator` (``evaluate``: a folder of query-aligned shards evaluated);
* :class:`Converter` (``convert``: a ratings table converted to shards of whole queries);
* a :class:`TrialPool` opener (``tune``: independent trials run side by side, one per worker).

An entry point left ``None`` means the callers' own in-process path: the local engine trains
with ``run_model`` (or isolated children, by ``timing``), evaluates the ``--data``/``--scores``
and ``--qrels``/``--run`` files and converts a loaded ratings table in this process. Code is
named by import path (``"module:attribute"``) and imported only when used (:func:`load`), so
reading the table imports no Dask (nor numpy): the command line's ``--engine`` choices come from
here without slowing its start. The pattern is :mod:`bench.runners.libraries`'.
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bench.errors import ConfigError, unknown

if TYPE_CHECKING:
    from bench.adapters.config import AdapterConfig
    from bench.data.letor import LetorSplits
    from bench.metrics.result import EvaluationResult
    from bench.runners.baselines import ALSParams
    from bench.runners.params import Params
    from bench.runners.registry import ModelSpec
    from bench.runners.result import FitResult, Selection


@dataclass(frozen=True)
class ClusterOptions:
    """Where a cluster engine runs: an existing ``scheduler`` (an address), or a new local
    loopback-only cluster of ``workers`` processes of ``threads`` threads each, with
    ``memory_limit`` per worker (``"auto"``: the machine's memory shared among them)."""

    scheduler: str | None = None
    workers: int = 2
    threads: int = 1
    memory_limit: str | int | None = "auto"


@dataclass(frozen=True)
class RatingColumns:
    """The columns of a ratings table as the command line names them (``None``: the reader's
    default or detection; see :func:`bench.data.dask_ratings.read_ratings_frame`)."""

    user: str | None = None
    item: str | None = None
    rating: str | None = None
    timestamp: str | None = None
    sep: str | None = None


class Trainer(Protocol):
    """Trains one (model, seed) as :func:`bench.runners.dispatch.run_model` does and returns a
    finished :class:`~bench.runners.result.FitResult`; ``record()`` is what the run's manifest
    says of the engine; ``close()`` closes the cluster and returns what completes that record
    (the manifest's writer records both: a trainer writes no manifest)."""

    def __call__(self, model: ModelSpec, splits: LetorSplits, params: Params, *, seed: int,
                 eval_at: tuple[int, ...], selection: Selection, log_train: bool,
                 als: ALSParams) -> FitResult: ...

    def record(self) -> dict[str, Any]: ...

    def close(self) -> dict[str, Any]: ...


class TrainerFactory(Protocol):
    """Opens a :class:`Trainer` over ``splits`` (its working files under ``workdir``, inside the
    run directory) on the cluster ``options`` describe."""

    def __call__(self, splits: LetorSplits, workdir: Path,
                 options: ClusterOptions) -> Trainer: ...


class Evaluator(Protocol):
    """Metrics of a folder of query-aligned shards (``qid``, ``label``, ``score_column``) under
    ``profile``, the cluster opened and closed inside the call."""

    def __call__(self, data: str | Path, *, score_column: str, metrics: list[str], profile: str,
                 per_query: bool, options: ClusterOptions) -> EvaluationResult: ...


class Converter(Protocol):
    """A ratings table (a file, a glob or a folder) converted to LETOR shards of whole queries
    under ``out``; returns the conversion's summary. ``check`` refuses, before any work, the
    adapter settings the engine does not run; the cluster is opened and closed inside the call;
    ``progress`` receives a line per stage."""

    def check(self, config: AdapterConfig) -> None: ...

    def __call__(self, ratings: str, out: str | Path, config: AdapterConfig, *,
                 columns: RatingColumns, options: ClusterOptions, rows_per_block: int,
                 progress: Callable[[str], None]) -> dict[str, Any]: ...


class TrialPool(Protocol):
    """Runs independent calls side by side (``ltrbench tune``'s trials, one per worker at a
    time): ``share`` sends a large argument to every worker once, ``submit`` starts a call and
    returns its key, ``finished`` returns ``(key, result, error)`` of the calls done within
    ``timeout`` seconds (``error``: the engine's own failure, e.g. the worker running it died;
    the call's exceptions are the caller's to catch inside the call), ``record`` says where the
    calls run (the summary records it)."""

    workers: int

    def share(self, value: Any) -> Any: ...

    def submit(self, fn: Callable[..., Any], *args: Any) -> int: ...

    def finished(self, timeout: float) -> list[tuple[int, Any, BaseException | None]]: ...

    def record(self) -> dict[str, Any]: ...


@contextlib.contextmanager
def no_cluster(options: ClusterOptions) -> Iterator[None]:
    """The local engine's cluster: none (the work runs in this process)."""
    yield None


#: The fields of an :class:`Engine` that name an object as ``"module:attribute"``.
_ENTRIES = ("cluster", "trainer", "evaluator", "converter", "trials")
_ENTRY = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


@dataclass(frozen=True)
class Engine:
    """One engine (see the module docstring). ``title``: its name in sentences ("Dask");
    ``cluster``: ``"module:attribute"`` of ``(ClusterOptions) -> context manager`` yielding the
    cluster's client, ``None`` for no cluster; ``trainer``, ``evaluator``, ``converter``: import
    paths of a :class:`TrainerFactory`, :class:`Evaluator`, :class:`Converter` (``None``: the
    caller's in-process path); ``trials``: of ``(ClusterOptions) -> context manager`` yielding a
    :class:`TrialPool` (``None``: tune runs its trials one at a time in this process)."""

    name: str
    title: str
    description: str
    cluster: str | None = None
    trainer: str | None = None
    evaluator: str | None = None
    converter: str | None = None
    trials: str | None = None

    def __post_init__(self) -> None:
        for what in _ENTRIES:
            path = getattr(self, what)
            if path is not None and (not isinstance(path, str) or not _ENTRY.fullmatch(path)):
                raise ConfigError(f"engine {self.name!r}: {what} {path!r} is not "
                                  "\"module:attribute\" (a dotted module Python imports, a colon, "
                                  "an attribute: \"bench.engines.dask_engine:open_cluster\")")

    @property
    def on_cluster(self) -> bool:
        """Whether the engine runs on a cluster (so ``--scheduler`` and ``--workers`` apply)."""
        return self.cluster is not None

    def open(self, options: ClusterOptions) -> AbstractContextManager[Any]:
        """The engine's cluster for ``options``, opened on entry and closed on exit."""
        opener: Callable[[ClusterOptions], AbstractContextManager[Any]] = (
            self._entry("cluster", self.cluster) if self.cluster else no_cluster)
        return opener(options)

    def open_trainer(self, splits: LetorSplits, workdir: Path,
                     options: ClusterOptions) -> Trainer:
        """The engine's :class:`Trainer` (its ``close`` closes the cluster it opened)."""
        factory: TrainerFactory = self._entry("trainer", self.trainer)
        return factory(splits, workdir, options)

    def evaluate(self, data: str | Path, *, score_column: str, metrics: list[str],
                 profile: str, per_query: bool, options: ClusterOptions) -> EvaluationResult:
        """``data`` (a folder of query-aligned shards) evaluated by the engine's
        :class:`Evaluator`."""
        fn: Evaluator = self._entry("evaluator", self.evaluator)
        return fn(data, score_column=score_column, metrics=metrics, profile=profile,
                  per_query=per_query, options=options)

    def convert(self, ratings: str, out: str | Path, config: AdapterConfig, *,
                columns: RatingColumns, options: ClusterOptions, rows_per_block: int,
                progress: Callable[[str], None]) -> dict[str, Any]:
        """``ratings`` converted by the engine's :class:`Converter`; returns its summary."""
        fn: Converter = self._entry("converter", self.converter)
        return fn(ratings, out, config, columns=columns, options=options,
                  rows_per_block=rows_per_block, progress=progress)

    def check_convert(self, config: AdapterConfig) -> None:
        """The engine's :class:`Converter` refuses the settings it does not run."""
        fn: Converter = self._entry("converter", self.converter)
        fn.check(config)

    def open_trials(self, options: ClusterOptions) -> AbstractContextManager[TrialPool]:
        """The engine's :class:`TrialPool` on the cluster ``options`` describe (closed on exit)."""
        opener: Callable[[ClusterOptions], AbstractContextManager[TrialPool]] = self._entry(
            "trial pool", self.trials)
        return opener(options)

    def _entry(self, what: str, path: str | None) -> Any:
        """The object the row names for ``what``, imported now (a ConfigError naming the row
        when it has none or it does not import)."""
        if path is None:
            raise ConfigError(f"the {self.name} engine has no {what}: its work runs in this "
                              "process")
        return load(path, f"engine {self.name!r} {what.replace('trial pool', 'trials')} ")


_E = "bench.engines.dask_engine"
#: The engines, the default (``local``) first. Adding one is a row here plus its module(s).
ENGINES: dict[str, Engine] = {e.name: e for e in (
    Engine(name="local", title="local",
           description="this process (and, with timing = \"isolated\", one child per fit)"),
    Engine(name="dask", title="Dask",
           description="a Dask cluster: a loopback-only local one, or --scheduler's",
           cluster=f"{_E}:open_cluster", trainer="bench.engines.dask_trainer:DaskTrainer",
           evaluator=f"{_E}:evaluate_shards", converter=f"{_E}:CONVERTER",
           trials="bench.engines.dask_trials:open_trial_pool"),
)}
#: The engine of a run, ``evaluate`` and ``convert`` when none is named.
DEFAULT_ENGINE = "local"


def engine_names() -> tuple[str, ...]:
    """The engines' names, in table order (the ``--engine`` choices, the config's ``engine``)."""
    return tuple(ENGINES)


def get_engine(name: str) -> Engine:
    """The record of the engine ``name``; a ConfigError lists the valid names."""
    try:
        row = ENGINES[name]
    except (KeyError, TypeError):
        raise unknown("engine", name, ENGINES) from None
    if not isinstance(row, Engine) or row.name != name:
        raise ConfigError(f"ENGINES[{name!r}] holds {getattr(row, 'name', row)!r}: an Engine "
                          "row is stored under its own name")
    return row


def cluster_engines() -> tuple[str, ...]:
    """The engines that run on a cluster (the ones ``--scheduler`` and ``--workers`` apply to)."""
    return tuple(e.name for e in ENGINES.values() if e.on_cluster)


def load(path: str, where: str = "") -> Any:
    """The object at ``"module:attribute"``, imported now; a module that does not import (or
    raises while imported) or lacks the attribute is a ConfigError that begins with ``where``."""
    module, _, attribute = path.partition(":")
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:  # not installed, or the module failed while imported
        raise ConfigError(f"{where}{path!r}: cannot import {module!r} ({type(exc).__name__}: "
                          f"{exc})") from None
    try:
        return getattr(loaded, attribute)
    except AttributeError:
        raise ConfigError(f"{where}{path!r}: module {module!r} has no attribute "
                          f"{attribute!r}") from None
