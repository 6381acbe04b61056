"""Group-aware cross-validation and hyper-parameter search (``ltrbench tune``).

Folds are made of whole queries: every query of the tuning data is held out in exactly one fold
and is never split between a fold's training and held-out parts (LightGBM #1137, #5660; XGBoost
#4844 show what happens otherwise). Each candidate parameter set is trained once per fold on the
other folds, with early stopping on the held-out fold, and scored by the library's own
``select_metric`` on the held-out fold at the chosen iteration. The candidate with the best mean
over folds wins (ties: the earlier candidate). Only the training split is used by default
(``use="train+vali"`` adds the validation split's queries); :func:`tune` never touches the test
split (a test hands it one that raises on any access; the dataset loader reads the test file
only for its own checks of the splits).

The scores are the library's built-in metric, i.e. ``select_metric`` under the profile named
after the library (``lightgbm``, ``xgboost``, ``catboost``; equal to the reference evaluator under
that profile, see ``ltrbench crosscheck``), not under the run's profile of ``metrics.csv``: the
result says so (:attr:`TuneResult.select_profile`, :meth:`TuneResult.selection`), and names the
run's profile where it differs.

Search: ``grid`` tries every combination of the value lists (at most :data:`MAX_GRID`);
``random`` tries ``n_iter`` distinct combinations drawn uniformly from that grid with
``numpy.random.default_rng(seed)``, without listing it (``n_iter`` above its size is refused).
A name given twice, an empty value and two equal values (``1`` and ``1.0``) are refused.

Output: :func:`write_tune_folder` writes ``out/tune/<name>/`` whole or not at all, under a name no
other tune holds; :func:`check_tune_out` refuses, before any data are read, an ``out`` that is or
lies over the dataset folder, and an ``out/tune`` that is a file, a FIFO or a device.

Every value of the space is checked before any fit, as a config's ``[params]`` are
(:data:`bench.runners.params.PARAM_SPECS`: its type, never coerced, and the range its library
accepts), and so is every candidate for the model's library
(:func:`~bench.runners.params.check_for_library`). The device is not a tuning parameter: it is
set once for the run (``--device``), and a GPU value in a grid would only fail after the first
fits.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import secrets
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.benchmark.progress import Step
from bench.data.letor import LetorData, LetorSplits
from bench.data.outputs import Inputs, check_output_dir
from bench.data.toml import unknown_key
from bench.errors import ConfigError
from bench.metrics.families import PRIMARY_METRIC
from bench.runners.gbdt import library_module
from bench.runners.params import Params, check_for_library, check_rows, param_spec
from bench.runners.registry import ModelSpec, get_model
from bench.runners.result import Selection, selection_at_door
from bench.runs.layout import RUN_SEALED

#: Params fields a search may vary: not the raw library tables, the seed (``--seed``), the
#: thread count or the device (set once for a run).
TUNABLE = tuple(f.name for f in fields(Params)
                if f.name not in ("raw", "seed", "n_threads", "device"))
#: Not tuned, with the option that sets each instead.
NOT_TUNED = {"device": "the config's device key (device = \"cuda\")", "seed": "--seed",
             "n_threads": "--threads"}


def query_folds(n_queries: int, n_folds: int, seed: int = 0) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """``(training groups, held-out groups)`` per fold; queries are dealt round-robin after a seeded
    shuffle, so fold sizes differ by at most one query and each query is held out exactly once."""
    if n_folds < 2:
        raise ConfigError("cross-validation needs at least 2 folds")
    if n_queries < n_folds:
        raise ConfigError(f"{n_queries} queries cannot make {n_folds} folds")
    order = np.random.default_rng(seed).permutation(n_queries)
    fold_of = np.empty(n_queries, dtype=np.int64)
    fold_of[order] = np.arange(n_queries) % n_folds
    groups = np.arange(n_queries, dtype=np.int64)
    return [(groups[fold_of != f], groups[fold_of == f]) for f in range(n_folds)]


def parse_space(text: str) -> dict[str, list[Any]]:
    """``"num_leaves=15,31;learning_rate=0.05,0.1"`` → ``{"num_leaves": [15, 31], ...}``.

    A name given twice (``num_leaves=3;num_leaves=7``) and an empty value (``3,,7``, ``3,7,``)
    are refused, not merged or skipped: either would try another grid than the one written.
    """
    space: dict[str, list[Any]] = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        name, sep, values = part.partition("=")
        name = name.strip()
        if not sep or not values.strip():
            raise ConfigError(f"search space entry {part!r}: expected name=v1,v2,...")
        if name in space:
            raise ConfigError(f"--grid {name}: given twice ({part!r} after "
                              f"{name}={','.join(map(str, space[name]))}); list every value once: "
                              f"{name}=v1,v2,...")
        items = [v.strip() for v in values.split(",")]
        if "" in items:
            raise ConfigError(f"--grid {name}: value {items.index('') + 1} of {values.strip()!r} "
                              "is empty; expected name=v1,v2,... without empty values")
        space[name] = [_value(v) for v in items]
    return check_space(space)


def check_space(space: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """Validate names against :data:`TUNABLE` (the closest one for a typo), that every list is
    non-empty without repeats, and every value against its
    :func:`~bench.runners.params.param_spec` (type and range; errors name ``--grid <name>``)."""
    if not space:
        raise ConfigError("--grid: empty search space")
    out = {}
    for name, values in space.items():
        if name in NOT_TUNED:
            raise ConfigError(f"--grid {name}: cannot tune {name!r}: it is set once for the run, "
                              f"with {NOT_TUNED[name]}")
        if name not in TUNABLE:
            err = unknown_key("--grid ", name, TUNABLE, noun="parameter")
            raise ConfigError(f"cannot tune {name!r}: {err}")
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise ConfigError(f"--grid {name}: expected a list of values; got {values!r}")
        vals = [param_spec(name).check(v, f"--grid {name}") for v in values]
        if not vals:
            raise ConfigError(f"--grid {name}: no values")
        again = [b for i, b in enumerate(vals) if any(_same(a, b) for a in vals[:i])]
        if again:  # 1 and 1.0 are one learning rate: the same candidate twice
            raise ConfigError(f"--grid {name}: a value repeats: {', '.join(map(repr, vals))} "
                              f"({again[0]!r} is given twice)")
        out[name] = vals
    return out


def check_candidates(spec: ModelSpec, cands: Sequence[Mapping[str, Any]],
                     base: Params | None = None) -> None:
    """Every candidate of the search for the model ``spec`` resolves to as the parameters it
    would train with, checked before any fit (ranges together, e.g. a rate schedule, and what
    the library refuses)."""
    for cand in cands:
        shown = ", ".join(f"{k}={v}" for k, v in cand.items())
        try:
            params = (base or Params()).with_overrides(**cand)
            check_for_library(params, spec.library, spec.objective)
        except ConfigError as exc:
            raise ConfigError(f"--grid candidate {shown}: {exc}") from None


def _same(a: Any, b: Any) -> bool:
    """Whether two grid values set the parameter alike (``1`` and ``1.0``; never ``True``/``1``)."""
    return (type(a) is type(b) and a == b) or (
        isinstance(a, int | float) and isinstance(b, int | float)
        and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _value(text: str) -> Any:
    """A grid value as TOML would read it: ``true``/``false``, an integer, a float, else a
    string (``nan``/``inf`` are floats, refused by the parameter's range)."""
    from bench.data.toml import TOMLDecodeError, loads

    if text in ("true", "false"):
        return text == "true"
    try:
        return loads(f"v = {text}")["v"]
    except TOMLDecodeError:
        return text


#: The most combinations a full grid search may have (each is trained once per fold); a larger
#: grid is searched with ``--random N``, which draws N of them without listing the rest.
MAX_GRID = 10_000


def grid_size(space: Mapping[str, Sequence[Any]]) -> int:
    """The number of combinations of ``space`` (the product of its list lengths)."""
    return math.prod(len(v) for v in space.values())


def candidates(space: dict[str, list[Any]], *, search: str = "grid", n_iter: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """The parameter sets to try, in order.

    ``grid``: every combination, in :func:`itertools.product` order (the last name varies
    fastest); refused beyond :data:`MAX_GRID`. ``random``: ``n_iter`` distinct combinations,
    indices into that order drawn with ``numpy.random.default_rng(seed).choice(size, n_iter,
    replace=False)`` and decoded digit by digit, so a grid of 10^15 combinations is never listed;
    ``n_iter`` above the grid's size is refused (it would silently be the full grid).
    """
    names = list(space)
    size = grid_size(space)
    if search == "grid":
        if size > MAX_GRID:
            raise ConfigError(f"--grid: {size:,} combinations ({' x '.join(str(len(space[n])) for n in names)}) "
                              f"are more than a full grid search tries ({MAX_GRID:,}); sample them with "
                              "--random N, or give fewer values")
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(space[n] for n in names))]
    if search == "random":
        if n_iter < 1:
            raise ConfigError("random search needs n_iter >= 1")
        if n_iter > size:
            raise ConfigError(f"--random {n_iter}: the grid has only {size:,} combination"
                              f"{'s' if size != 1 else ''}; ask for at most {size:,}, or leave out "
                              "--random to try them all")
        return [_combination(space, names, i) for i in _draw(space, names, n_iter, seed)]
    raise ConfigError(f"unknown search {search!r}; valid: grid, random")


def _draw(space: dict[str, list[Any]], names: list[str], n_iter: int, seed: int) -> list[int]:
    """``n_iter`` distinct indices into the grid, uniformly: ``Generator.choice`` without
    replacement while the grid's size fits an int64; beyond it (``choice`` cannot take the
    size) one uniform digit per list, a repeated index drawn again."""
    rng = np.random.default_rng(seed)
    size = grid_size(space)
    if size < 2**63:
        return [int(i) for i in rng.choice(size, size=n_iter, replace=False)]
    seen: dict[int, None] = {}
    while len(seen) < n_iter:
        index = 0
        for name in names:
            index = index * len(space[name]) + int(rng.integers(len(space[name])))
        seen.setdefault(index)
    return list(seen)


def _combination(space: dict[str, list[Any]], names: list[str], index: int) -> dict[str, Any]:
    """The ``index``-th combination in :func:`itertools.product` order (mixed radix, the last
    name the lowest digit)."""
    out: dict[str, Any] = {}
    for name in reversed(names):
        index, digit = divmod(index, len(space[name]))
        out[name] = space[name][digit]
    return {n: out[n] for n in names}


@dataclass
class TuneResult:
    """``folds``: one row per (candidate, fold); ``summary``: one row per candidate, best first."""

    model: str
    select_metric: str
    n_folds: int
    folds: pd.DataFrame
    summary: pd.DataFrame
    best_params: dict[str, Any]
    best_score: float
    best_iteration: int
    #: the profile under which ``select_metric`` was computed: the library's own built-in metric
    #: (``lightgbm``, ``xgboost``, ``catboost``), not the run's reference profile
    select_profile: str = ""

    def selection(self, run_profile: str | None = None) -> str:
        """In words, what the scores are: the library's built-in metric on the held-out folds
        and its profile; with ``run_profile`` (the profile of a later run's ``metrics.csv``)
        when that differs, a note that the run's number of the same name may differ."""
        text = (f"{self.select_metric} by {self.select_profile}'s built-in metric (profile "
                f"{self.select_profile!r}), mean over {self.n_folds} held-out query folds")
        if run_profile is not None and run_profile != self.select_profile:
            text += (f"; ltrbench run reports {self.select_metric} under profile "
                     f"{run_profile!r}, which may differ (blank queries, gains, ties; "
                     "ltrbench crosscheck shows the gap)")
        return text

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of ``ltrbench tune --format json``."""
        return {
            "model": self.model,
            "select_metric": self.select_metric,
            "select_profile": self.select_profile,
            "n_folds": self.n_folds,
            "best_params": self.best_params,
            "best_score": self.best_score,
            "best_iteration": self.best_iteration,
            "candidates": [
                {"params": json.loads(r.params), "mean": float(r.mean), "std": float(r.std),
                 "best_iteration": float(r.best_iteration)}
                for r in self.summary.itertuples()
            ],
        }


def tune(
    splits: LetorSplits,
    model: str | ModelSpec,
    space: dict[str, list[Any]],
    *,
    base: Params | None = None,
    search: str = "grid",
    n_iter: int = 10,
    n_folds: int = 3,
    seed: int = 0,
    select_metric: str | Selection = PRIMARY_METRIC,
    eval_at: tuple[int, ...] = (1, 3, 5, 10),
    use: str = "train",
    progress: Step | None = None,
) -> TuneResult:
    """Cross-validated search for ``model`` (a GBDT model; see the module docstring).

    The Python entry point: ``model`` (a name, or its resolved
    :class:`~bench.runners.registry.ModelSpec`), ``space`` and ``select_metric`` (a name, or its
    :class:`~bench.runners.result.Selection`) are resolved here, once, and the candidates built
    and checked; :func:`search` then trains them. ``progress(text, done, total)`` is told each
    fit before it starts (``total`` = candidates x folds).
    """
    spec = model if isinstance(model, ModelSpec) else get_model(model)
    if not spec.is_gbdt:
        raise ConfigError(f"only GBDT models (LightGBM, XGBoost, CatBoost) are tuned; {spec.name!r} "
                          "has no parameters to tune")
    selection = (select_metric if isinstance(select_metric, Selection)
                 else selection_at_door(None, select_metric))
    cands = candidates(check_space(space), search=search, n_iter=n_iter, seed=seed)
    check_candidates(spec, cands, base)
    return search_candidates(splits, spec, cands, base=base, n_folds=n_folds, seed=seed,
                             selection=selection, eval_at=eval_at, use=use, progress=progress)


def search_candidates(
    splits: LetorSplits,
    spec: ModelSpec,
    cands: Sequence[Mapping[str, Any]],
    *,
    base: Params | None,
    n_folds: int,
    seed: int,
    selection: Selection,
    eval_at: tuple[int, ...],
    use: str,
    progress: Step | None = None,
) -> TuneResult:
    """Train every candidate of ``cands`` (checked: :func:`check_candidates`) once per query fold
    and rank them (see the module docstring). Takes resolved values only: nothing is looked up
    by name here."""
    if not spec.is_gbdt:
        raise ConfigError(f"only GBDT models (LightGBM, XGBoost, CatBoost) are tuned; {spec.name!r} "
                          "has no parameters to tune")
    data = _tuning_data(splits, use)
    if data.n_queries < n_folds:
        raise ConfigError(f"{n_folds} folds (--folds) need at least {n_folds} queries; the "
                          f"tuning data ({use}) have {data.n_queries}")
    folds = query_folds(data.n_queries, n_folds, seed)
    fit = _fitter(spec.library)
    rows = []
    total = len(cands) * len(folds)
    for ci, cand in enumerate(cands):
        params = (base or Params()).with_overrides(**cand, seed=seed)
        for fi, (tr, va) in enumerate(folds):
            train = data.take_queries(tr)
            check_rows(params, spec.library, train.n_rows, split=f"fold {fi + 1}'s training")
            if progress is not None:
                shown = ", ".join(f"{k}={v}" for k, v in cand.items())
                progress(f"candidate {ci + 1}/{len(cands)} ({shown}), fold {fi + 1}/{len(folds)}",
                         ci * len(folds) + fi, total)
            _, _, res = fit(
                train, data.take_queries(va), params, objective=spec.objective,
                eval_at=eval_at, selection=selection, log_train=False,
            )
            log = res.evallog
            hit = log[(log["split"] == "vali") & (log["metric"] == selection.metric)
                      & (log["iteration"] == res.best_iteration)]
            rows.append({"candidate": ci, "params": json.dumps(cand, sort_keys=True), "fold": fi,
                         "score": float(hit["value"].iloc[0]), "best_iteration": res.best_iteration,
                         "fit_s": res.fit_s})
    if progress is not None:
        progress(f"{len(cands)} candidates x {len(folds)} folds done", total, total)
    return _result(spec, selection, n_folds, pd.DataFrame(rows))


def _result(spec: ModelSpec, selection: Selection, n_folds: int, folds_frame: pd.DataFrame) -> TuneResult:
    """The :class:`TuneResult` of the per-fold rows: candidates ranked by their mean, best first."""
    summary = (
        folds_frame.groupby(["candidate", "params"], sort=True)
        .agg(mean=("score", "mean"), std=("score", "std"), best_iteration=("best_iteration", "mean"))
        .reset_index()
        .sort_values(["mean", "candidate"], ascending=[False, True], kind="stable")
        .reset_index(drop=True)
    )
    top = summary.iloc[0]
    return TuneResult(
        model=spec.name,
        select_metric=selection.metric,
        n_folds=n_folds,
        folds=folds_frame,
        summary=summary,
        best_params=json.loads(top["params"]),
        best_score=float(top["mean"]),
        best_iteration=round(float(top["best_iteration"])),
        select_profile=spec.library,
    )


def check_tune_out(out: str | os.PathLike[str], inputs: Inputs) -> Path:
    """``out`` once tune may write ``out/tune/<name>/`` there, checked before any data are read:
    never into or over the dataset folder (as ``ltrbench run --out``), and ``out/tune`` must be
    a folder (or absent), so that nothing fails after the fits are done."""
    inputs = list(inputs)
    check_output_dir(out, option="--out", inputs=inputs, into=("tune",), sealed=RUN_SEALED)
    check_output_dir(Path(out) / "tune", option="--out", inputs=inputs)
    return Path(out)


def write_tune_folder(out: str | os.PathLike[str], name: str, files: Mapping[str, str]) -> Path:
    """Write ``files`` (name -> UTF-8 text) as the new folder ``out/tune/<name>``, complete or
    not at all, and return it.

    The files are written into a hidden ``.<name>.<pid>-<hex>.partial`` folder, which is then
    renamed over a reserved empty folder (POSIX ``rename(2)`` replaces an empty directory
    atomically), so an interrupted tune leaves no half-written result folder, and a second
    tune of the same dataset and model in the same second gets ``<name>-2`` instead of failing
    after its fits (or writing over the first one's files).
    """
    parent = Path(out) / "tune"
    parent.mkdir(parents=True, exist_ok=True)
    tmp = parent / f".{name}.{os.getpid()}-{secrets.token_hex(4)}.partial"
    tmp.mkdir()
    try:
        for fname, text in files.items():
            (tmp / fname).write_text(text, encoding="utf-8")
        for n in itertools.count(1):
            folder = parent / (name if n == 1 else f"{name}-{n}")
            try:
                folder.mkdir()  # reserve the name; another tune of the same second takes the next
            except FileExistsError:
                continue
            os.replace(tmp, folder)
            return folder
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    raise AssertionError("unreachable")  # pragma: no cover


def _tuning_data(splits: LetorSplits, use: str) -> LetorData:
    if use == "train":
        return splits.train
    if use == "train+vali":
        return _concat(splits.train, splits.vali)
    raise ConfigError(f"tuning data {use!r} not allowed; valid: train, train+vali (never test)")


def _concat(a: LetorData, b: LetorData) -> LetorData:
    # Query ids of b are shifted so that no query of b merges with a query of a.
    shift = int(a.qid.max()) + 1 - int(b.qid.min()) if a.n_rows and b.n_rows else 0
    ids = {}
    if a.user is not None and b.user is not None:
        ids["user"] = np.concatenate([a.user, b.user])
    if a.item is not None and b.item is not None:
        ids["item"] = np.concatenate([a.item, b.item])
    return LetorData.build(
        np.concatenate([a.X, b.X]), np.concatenate([a.y, b.y]),
        qid=np.concatenate([a.qid, b.qid + shift]), feature_names=a.feature_names,
        source=f"{a.source} + {b.source}", **ids,
    )


def _fitter(library: str) -> Any:
    return library_module(library).fit
