"""``bench.benchmark.run(...)``: the whole benchmark from Python, returning a finished run.

    from bench.benchmark import run

    result = run("synthetic", models=["lightgbm", "xgboost", "random"], seeds=[0, 1],
                 quick=True)
    result.to_frame()          # model x (metric, mean/std over seeds) on the test split
    result.leaderboard()       # the leaderboard table: means, 95% CIs, paired tests vs the best
    result.crosscheck["ok"]    # the library-vs-reference cross-check
    result.save("my-results")  # the run directory, copied

Your own ranker is a row like the others (see :mod:`bench.runners.custom` for what it is called
with)::

    from mypackage.rankers import MyRanker   # a module-level class: fit(X, y, group=...), predict(X)

    result = run("synthetic", models=["lightgbm", "mine"], custom_models={"mine": MyRanker},
                 seeds=[0, 1], quick=True)

It is :func:`bench.benchmark.pipeline.run_benchmark` (the same config, validation, files and
numbers as ``ltrbench run``) with Python arguments, writing into a temporary folder unless
``out_dir`` is given, and :class:`RunResult` reading the run directory back.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import Any

import pandas as pd

from bench.benchmark.config import RunConfig
from bench.benchmark.config_schema import check_data_dir, python_value
from bench.data.letor import LetorSplits
from bench.data.python_args import user_path
from bench.data.toml import show
from bench.errors import ConfigError, LtrbenchError
from bench.runs.manifest_check import read_run_manifest


def run(dataset: str = "synthetic", *, models: Sequence[str] | str | None = None,
        seeds: Sequence[int] | str | None = None, profile: str | None = None,
        metrics: Sequence[str] | str | None = None, quick: bool = False,
        params: dict[str, Any] | None = None,
        custom_models: Mapping[str, Any] | None = None, out_dir: str | Path | None = None,
        splits: LetorSplits | None = None, progress: bool = False,
        **options: Any) -> RunResult:
    """Run the benchmark and return the finished run.

    ``dataset``: a catalogue name or a LETOR folder (ignored for loading when ``splits`` is
    given; it still names the run). ``models``, ``seeds``, ``metrics``: as in a config (aliases
    such as ``"lightgbm"`` and ranges such as ``"0-4"`` are accepted). ``params``: the shared
    ``[params]`` table (``{"n_trees": 200}``). ``custom_models``: your own rankers by name, each
    a module-level class or factory function, a ``"package.module:attribute"`` string, or
    ``{"factory": <either>, "params": {...}}`` (the ``[custom_models.<name>]`` table of a
    config); name them in ``models`` to train them (:mod:`bench.runners.custom`: the factory
    gets ``params`` and the seed, ``fit`` the training split with the validation split as
    ``eval_set``). A failing ``fit`` raises :class:`~bench.runners.custom.CustomModelFailure`
    after the other models have run (its ``run_dir`` holds their results). Any other config key goes in ``options``
    (``device="cuda"``, ``engine="dask"``, ``strict=True`` ...). ``out_dir``: where
    ``runs/<run-id>/`` is written (default: a new temporary folder, so nothing lands in a
    checked-out ``results/``). Errors are those of ``ltrbench run``
    (:class:`~bench.errors.ConfigError` before any data, :class:`~bench.errors.DataError`):
    the values go through the config's schema (:mod:`bench.benchmark.config_schema`), so
    ``seeds=[1.5]``, ``quick="false"`` or ``params={"n_trees": True}`` are refused, never
    coerced.
    """
    from bench.benchmark.pipeline import run_benchmark

    if custom_models is not None and not isinstance(custom_models, Mapping):
        raise ConfigError(f"custom_models: expected a mapping of name -> class, factory or "
                          f"\"package.module:attribute\"; got {show(custom_models)}")
    for key in custom_models or {}:
        if not isinstance(key, str):
            raise ConfigError(f"custom_models: the model name {show(key)} is not a string; "
                              "expected names such as \"mine\" (they go in models=[...])")
    progress = python_value(progress)
    doc: dict[str, Any] = {"dataset": dataset, **options}
    for key, value in (("models", models), ("seeds", seeds), ("profile", profile),
                       ("metrics", metrics), ("params", params),
                       ("custom_models", None if custom_models is None else dict(custom_models))):
        if value is not None:
            doc[key] = value
    if quick is not False:  # checked by the config like every value: "false" is not False
        doc["quick"] = quick
    doc = {k: python_value(v, k) for k, v in doc.items()}  # a factory itself is left as it is
    config = RunConfig.from_dict(doc)  # every value typed and range-checked before any data
    check_data_dir(config.data_dir)
    if splits is not None and not isinstance(splits, LetorSplits):
        raise ConfigError(f"splits: expected a bench.data.LetorSplits (train, vali, test) or "
                          f"None; got {type(splits).__name__}")
    if not isinstance(progress, bool):
        raise ConfigError(f"progress: expected True or False; got {progress!r}")
    if out_dir is not None and (not isinstance(out_dir, str | PathLike) or not str(out_dir)):
        raise ConfigError(f"out_dir: expected a folder path (a non-empty str or Path) or None; "
                          f"got {show(out_dir)}")
    if out_dir is not None:  # ``~`` expanded; a failing __fspath__ or a pasted newline named
        out_dir = user_path(out_dir, "out_dir", strict=True)
    if out_dir is not None:  # the checks of ``ltrbench run --out``: never over an input
        from bench.data.outputs import check_output_dir
        from bench.datasets.sealed import SEALED_DATASETS, dataset_folders
        from bench.runs.layout import RUN_INTO, RUN_WRITES
        from bench.runs.naming import crosscheck_folders

        check_output_dir(out_dir, option="out_dir", inputs=[
            ("dataset", dataset), ("data_dir", config.data_dir),
            *dataset_folders(config.data_dir, around=out_dir, into=(
                *RUN_INTO, *(crosscheck_folders(config.dataset) if config.crosscheck else ())))],
            writes=RUN_WRITES if config.crosscheck else (), into=RUN_INTO,
            sealed=("dataset", *SEALED_DATASETS))
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="ltrbench-"))
    run_dir = run_benchmark(config, out_dir=out, progress=progress, splits=splits)
    return RunResult(run_dir)


def _leaderboard_option(key: str, value: Any) -> Any:
    """A :meth:`RunResult.leaderboard` option of the type its
    :class:`~bench.report.build.LeaderboardOptions` field holds, else a :class:`ConfigError`
    naming it (``metrics=5`` was a ``TypeError`` inside the report): ``metrics`` a list of
    names or one comma-separated string; ``primary``, ``split`` a name; ``confidence`` a
    number; the resample counts and ``seed`` integers (not bools)."""
    if key == "metrics":
        names = _spellings(value) if isinstance(value, str) else value
        if not isinstance(names, list | tuple) or not names \
                or not all(isinstance(m, str) and m for m in names):
            raise ConfigError(f"leaderboard: metrics: expected metric names (a list, or one "
                              f"comma-separated string); got {show(value)}")
        return tuple(names)
    expected: tuple[type, ...] = {"primary": (str,), "split": (str,),
                                  "confidence": (int, float)}.get(key, (int,))
    if isinstance(value, bool) or not isinstance(value, expected):
        what = {str: "a name", float: "a number"}.get(expected[-1], "an integer")
        raise ConfigError(f"leaderboard: {key}: expected {what}; got {show(value)}")
    return value


def _spellings(text: str) -> list[str]:
    """The names of one metrics text as the user spelled each (``"hit@3 map"``, ``"ndcg@1,3"``:
    ``ndcg@1``, ``ndcg@3``), split as every metrics text is (:func:`bench.metrics.parse_metrics`);
    a text the grammar does not read is split at its commas (the run says what it has)."""
    from bench.metrics import parse_metrics

    try:
        return [spec.key for spec in parse_metrics(text)]
    except LtrbenchError:
        return [m.strip() for m in text.split(",")]


def _run_spellings(options: dict[str, Any], have: Any) -> dict[str, str]:
    """Leaderboard ``metrics`` and ``primary`` spelled another way than the run's own names (a
    table header, ``NDCG@10``, as the run's config accepted it) as the run's names, in place in
    ``options``; returns ``{run name: the spelling asked}`` for the table's columns (the keys
    are the user's own spellings)."""
    from bench.benchmark.scoring import expand_metrics
    from bench.metrics.families import PRIMARY_METRIC

    have = set(have)

    def own(name: str) -> str:
        if name in have:
            return name
        try:
            names = expand_metrics([name])
        except LtrbenchError as exc:  # not a metric name: the report says what the run has,
            if not name.isascii():  # but a look-alike ('m\u0430p') would read as 'map' there
                raise ConfigError(f"leaderboard: {exc}") from None
            return name
        return names[0] if len(names) == 1 and names[0] in have else name

    spelled: dict[str, str] = {}
    if "metrics" in options:
        names = tuple(own(m) for m in options["metrics"])
        for name in dict.fromkeys(names):  # two spellings, one column: never one silently
            asked = list(dict.fromkeys(m for n, m in zip(names, options["metrics"],
                                                         strict=True) if n == name))
            if len(asked) > 1:
                raise ConfigError(f"leaderboard: metrics: {', '.join(map(repr, asked))} are one "
                                  f"metric of this run ({name!r}): name it once")
        spelled = {n: m for n, m in zip(names, options["metrics"], strict=True) if n != m}
        options["metrics"] = names = tuple(dict.fromkeys(names))
        if "primary" not in options:  # as ltrbench report: ndcg@10 when asked, else the first
            options["primary"] = PRIMARY_METRIC if PRIMARY_METRIC in names else names[0]
    if "primary" in options:
        asked, options["primary"] = options["primary"], own(options["primary"])
        shown = options.get("metrics", tuple(have))
        if options["primary"] not in shown:  # said with the spelling and keyword given
            raise ConfigError(f"leaderboard: primary {asked!r} is not among the table's metrics "
                              f"({', '.join(sorted(shown))}): pick one of them, or add it to "
                              "metrics=")
    return spelled


@dataclass(frozen=True, eq=False)
class RunResult:
    """A finished run read back from its directory (``run_dir``): the same files the CLI writes
    (see :mod:`bench.runs.layout`)."""

    run_dir: Path

    def __post_init__(self) -> None:
        """``run_dir`` as a :class:`Path` (a string is accepted), and a run directory: one
        holding ``manifest.json`` (else a :class:`~bench.errors.ConfigError` naming it)."""
        if not isinstance(self.run_dir, str | PathLike) or not str(self.run_dir):
            raise ConfigError(f"run_dir: expected a run directory path; got {show(self.run_dir)}")
        # absolute: a notebook changes its working directory between calls, and a relative
        # run_dir would then read another folder's files, or none
        path = Path(os.path.abspath(user_path(self.run_dir, "run_dir", strict=True)))
        if not (path / "manifest.json").is_file():
            raise ConfigError(f"run_dir: {path} is not a run directory (no manifest.json); "
                              "expected <out>/runs/<run-id>")
        object.__setattr__(self, "run_dir", path)

    def __eq__(self, other: object) -> bool:
        """Two results are equal when they read the same run directory (its files are the
        run's numbers): ``run(...) == RunResult(path)`` is true, a re-run with the same seeds
        is another run (its own id and files)."""
        if not isinstance(other, RunResult):
            return NotImplemented
        return self.run_dir.resolve() == other.run_dir.resolve()

    def __hash__(self) -> int:
        return hash(self.run_dir.resolve())

    @cached_property
    def _manifest(self) -> dict[str, Any]:
        return read_run_manifest(self.run_dir)

    @property
    def manifest(self) -> dict[str, Any]:
        """``manifest.json``: config hash, dataset, device, cross-check, split checks, times (a
        copy: changing it changes no later answer of this result)."""
        return copy.deepcopy(self._manifest)

    @cached_property
    def config(self) -> RunConfig:
        """The run's resolved configuration (``config.toml``), read and validated once."""
        from bench.data.toml import read_toml

        return RunConfig.from_dict(read_toml(self.run_dir / "config.toml"))

    @property
    def profile(self) -> str:
        return self.config.profile

    def _table(self, name: str) -> pd.DataFrame:
        """The run's table ``name`` through the checked reader of ``report`` (a missing,
        damaged or gone file is a :class:`~bench.errors.DataError` naming it, line and
        column, never a pandas or pyarrow traceback)."""
        from bench.runs.reader import RunDir

        return RunDir(self.run_dir).table(name)

    @cached_property
    def _metrics(self) -> pd.DataFrame:
        frame = self._table("metrics.csv")
        if "profile" not in frame.columns:  # written before metrics.csv had the column
            return frame.reset_index(drop=True)
        return frame[frame["profile"].astype(str) == self.profile].reset_index(drop=True)

    @property
    def metrics(self) -> pd.DataFrame:
        """``metrics.csv`` under the run's profile: one row per model, seed, split, metric (a
        copy, read once: a user's ``result.metrics["value"] = 0`` once changed every later
        :meth:`to_frame`)."""
        return self._metrics.copy()

    @cached_property
    def _timings(self) -> pd.DataFrame:
        return self._table("timings.csv")

    @property
    def timings(self) -> pd.DataFrame:
        """``timings.csv``: fit and predict times per model and seed, with the other load (a
        copy, read once, as :attr:`metrics`)."""
        return self._timings.copy()

    def per_query(self) -> pd.DataFrame:
        """``per_query.parquet``: every (model, seed, split, metric, query) value."""
        return self._table("per_query.parquet").copy()

    @property
    def crosscheck(self) -> dict[str, Any] | None:
        """The cross-check's record (``ok``, errors, reasons; ``ok`` is ``None`` when no library
        model was in the run), or ``None`` when it was not run."""
        cc = self._manifest.get("crosscheck")
        return copy.deepcopy(cc) if isinstance(cc, dict) else None

    @property
    def split_checks(self) -> list[dict[str, Any]]:
        """The split checks' findings (:mod:`bench.data.split_checks`)."""
        return copy.deepcopy(list(self._manifest.get("split_checks") or []))

    def to_frame(self, split: str = "test") -> pd.DataFrame:
        """Models (rows, in run order) x (metric, ``mean``/``std`` over seeds) on ``split``."""
        frame = self._metrics  # read only here: no copy (:attr:`metrics` copies)
        splits = frame["split"].astype(str)
        present = list(dict.fromkeys(splits))
        if not isinstance(split, str) or split not in present:
            raise ConfigError(f"split: expected one of the run's evaluated splits "
                              f"{', '.join(present)}; got {show(split)}")
        m = frame[splits == split]
        stats = m.groupby(["model", "metric"], sort=False)["value"].agg(["mean", "std"])
        wide = stats.unstack("metric")
        wide = wide.swaplevel(axis=1)
        order = list(dict.fromkeys(m["metric"].astype(str)))
        wide = wide.reindex(columns=pd.MultiIndex.from_product([order, ["mean", "std"]]))
        return wide.reindex(list(dict.fromkeys(m["model"].astype(str))))

    def leaderboard(self, **options: Any) -> pd.DataFrame:
        """The leaderboard table of this run (:func:`bench.report.build.build_table`): per model
        the mean over seeds, the bootstrap CI of the primary metric and the Holm-corrected paired
        tests against the best row. ``options``: :class:`~bench.report.build.LeaderboardOptions`
        fields (``metrics``, ``primary``, ``confidence`` ...)."""
        from dataclasses import fields

        from bench.errors import did_you_mean
        from bench.report.build import LeaderboardOptions, build_table
        from bench.runs.reader import RunDir

        valid = [f.name for f in fields(LeaderboardOptions)]
        for key in options:
            if key not in valid:
                raise ConfigError(f"leaderboard: unknown option {key!r}; "
                                  f"{did_you_mean(key, valid)}valid: {', '.join(valid)}")
        options = {k: _leaderboard_option(k, python_value(v)) for k, v in options.items()}
        spelled = _run_spellings(options, self.metrics["metric"].astype(str).unique())
        try:
            opts = LeaderboardOptions(**options)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"leaderboard: {exc}") from None
        run = RunDir(self.run_dir)
        try:
            table = build_table(run, run.datasets()[0], options=opts)
        except ValueError as exc:  # an option out of range (the report's own errors pass)
            if isinstance(exc, LtrbenchError):
                raise
            raise ConfigError(f"leaderboard: {exc}") from None
        rows = []
        for row in table["rows"]:
            rec: dict[str, Any] = {"model": row["model"]}
            for metric in table["metrics"]:
                rec[metric] = row["metrics"][metric]["mean"]
            primary = row["metrics"].get(table["primary_metric"], {})
            rec["ci_low"], rec["ci_high"] = primary.get("ci_low"), primary.get("ci_high")
            vs = row["vs_best"] or {}
            rec["p_randomization_holm"] = vs.get("p_randomization_holm")
            rec["p_t_holm"] = vs.get("p_t_holm")
            rec["fit_s_median"] = (row.get("fit_s") or {}).get("median")
            rows.append(rec)
        return pd.DataFrame(rows).set_index("model").rename(columns=spelled)

    def save(self, folder: str | Path) -> Path:
        """Copy the run directory into ``folder`` (as ``folder/<run-id>``); returns the copy.

        Refused with a :class:`~bench.errors.ConfigError`, before anything is written: a
        ``folder`` that is not a path, is a file or lies under one, lies inside the run directory
        (the copy would land in what it copies), or already holds ``<run-id>`` (the copy never
        merges into or replaces another folder); and what every output folder is refused
        (:func:`bench.data.outputs.check_output_dir`: a FIFO or device, a read-only folder, the
        run's dataset folder or a folder inside it)."""
        if not isinstance(folder, str | PathLike) or not str(folder):
            raise ConfigError(f"save: expected a folder path (a non-empty str or Path); got "
                              f"{show(folder)}")
        given = user_path(folder, "save", strict=True)
        base, src = given.resolve(), self.run_dir.resolve()
        dest = base / self.run_dir.name
        recorded = self._manifest.get("dataset", {})  # the checks of every output folder
        data = recorded.get("path") if isinstance(recorded, dict) else None
        from bench.data.outputs import check_output_dir  # a FIFO, read-only, the dataset folder
        from bench.datasets.sealed import SEALED_DATASETS, datasets_around

        check_output_dir(given, option="save:", sealed=("the run's dataset", *SEALED_DATASETS),
                         inputs=[("the run's dataset", data if isinstance(data, str) else None),
                                 *datasets_around(given)])
        if base == src or src in base.parents:
            raise ConfigError(f"save: {folder} lies inside the run directory {src}; the copy "
                              "would land in what it copies: choose a folder outside it")
        for up in (base, *base.parents):
            if up.exists() and not up.is_dir():
                raise ConfigError(f"save: {up} is a file, not a folder")
        if os.path.lexists(dest):
            raise ConfigError(f"save: {dest} already exists; the copy never replaces or merges "
                              "into a folder: choose another folder or remove it")
        base.mkdir(parents=True, exist_ok=True)  # copied aside, renamed in once whole: a full
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.save-", dir=base))  # disk left
        try:  # a run folder without its manifest or per-query table where the copy goes
            shutil.copytree(self.run_dir, staging / dest.name,
                            ignore=shutil.ignore_patterns(".writer.lock"))
            os.rename(staging / dest.name, dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return dest
