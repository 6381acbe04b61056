"""The leaderboard table as typed values: one writer (:meth:`Table.to_json`) and one reader
(:meth:`Table.from_json`) of the table objects in ``leaderboard.json``.

:func:`bench.report.build.build_table` fills these from a run directory; the JSON layout (keys,
their order, ``null`` for a missing number) is the one committed leaderboards hold, so
``Table.from_json(doc).to_json() == doc`` for every table ``ltrbench report`` wrote (a test
checks it on the committed ``results/leaderboard.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

#: A number as JSON holds it: ``None`` for NaN / missing.
Number = float | int | None


@dataclass
class SeedStats:
    """A value over seeds: ``mean``, sample ``std`` and the value of each seed."""

    mean: Number
    std: Number
    per_seed: dict[str, Number] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "std": self.std, "per_seed": dict(self.per_seed)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeedStats:
        return cls(d["mean"], d["std"], dict(d["per_seed"]))


@dataclass
class MetricCell(SeedStats):
    """A metric of one row: over seeds, plus the bootstrap interval over queries of the
    per-query values averaged over seeds (``None`` without per-query values)."""

    ci_low: Number = None
    ci_high: Number = None
    ci_mean: Number = None
    n_queries: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "ci_low": self.ci_low, "ci_high": self.ci_high,
                "ci_mean": self.ci_mean, "n_queries": self.n_queries}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MetricCell:
        return cls(d["mean"], d["std"], dict(d["per_seed"]), d["ci_low"], d["ci_high"],
                   d["ci_mean"], d["n_queries"])


@dataclass
class FitTime(SeedStats):
    """Fit seconds of one row over seeds, and over seeds x repeats: median, range, count, the
    number of contended fits (``None``: load not recorded) and the timing mode."""

    median: Number = None
    min: Number = None
    max: Number = None
    n: int = 0
    contended: int | None = None
    timing: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "median": self.median, "min": self.min, "max": self.max,
                "n": self.n, "contended": self.contended, "timing": self.timing}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FitTime:
        return cls(d["mean"], d["std"], dict(d["per_seed"]), d["median"], d["min"], d["max"],
                   d["n"], d["contended"], d["timing"])


@dataclass
class PairedTest:
    """The primary metric of a row against the best row: randomization and t p-values, each
    raw and Holm-corrected, over ``n_queries`` paired queries."""

    metric: str
    p_randomization: Number
    p_randomization_holm: Number
    p_t: Number
    p_t_holm: Number
    n_queries: int

    def to_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "p_randomization": self.p_randomization,
                "p_randomization_holm": self.p_randomization_holm, "p_t": self.p_t,
                "p_t_holm": self.p_t_holm, "n_queries": self.n_queries}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PairedTest:
        return cls(d["metric"], d["p_randomization"], d["p_randomization_holm"], d["p_t"],
                   d["p_t_holm"], d["n_queries"])


@dataclass
class Row:
    """One model of a table. ``vs_best`` is ``None`` for the best row (and without tests);
    ``blank[metric]`` holds ``{"blank0": SeedStats, "blank1": SeedStats}`` when the split has
    blank queries."""

    model: str
    library: str
    seeds: list[int | str]
    metrics: dict[str, MetricCell] = field(default_factory=dict)
    fit_s: FitTime = field(default_factory=lambda: FitTime(None, None))
    predict_s: SeedStats = field(default_factory=lambda: SeedStats(None, None))
    vs_best: PairedTest | None = None
    blank: dict[str, dict[str, SeedStats]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "library": self.library,
            "seeds": list(self.seeds),
            "metrics": {m: c.to_json() for m, c in self.metrics.items()},
            "fit_s": self.fit_s.to_json(),
            "predict_s": self.predict_s.to_json(),
            "vs_best": None if self.vs_best is None else self.vs_best.to_json(),
            "blank": {m: {tag: s.to_json() for tag, s in e.items()}
                      for m, e in self.blank.items()},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Row:
        return cls(
            d["model"], d["library"], list(d["seeds"]),
            {m: MetricCell.from_json(c) for m, c in d["metrics"].items()},
            FitTime.from_json(d["fit_s"]), SeedStats.from_json(d["predict_s"]),
            None if d["vs_best"] is None else PairedTest.from_json(d["vs_best"]),
            {m: {tag: SeedStats.from_json(s) for tag, s in e.items()}
             for m, e in d["blank"].items()},
        )


@dataclass
class Table:
    """The leaderboard of one dataset of one run (see :func:`bench.report.build.build_table`).

    ``published`` holds the rows of a published table beside ours (plain JSON: their layout is
    the source's, see :func:`bench.report.build.published_beside_ours`).
    """

    dataset: str
    run_id: str
    unfinished: bool
    run_dir: str
    run_config: str
    run_timestamp: str
    profile: str
    split: str
    seeds: list[int | str]
    metrics: list[str]
    primary_metric: str
    n_queries: int
    blank_queries: int | None
    best_model: str | None
    notes: list[str]
    rows: list[Row]
    published: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "run_id": self.run_id, "unfinished": self.unfinished,
            "run_dir": self.run_dir, "run_config": self.run_config,
            "run_timestamp": self.run_timestamp, "profile": self.profile, "split": self.split,
            "seeds": list(self.seeds), "metrics": list(self.metrics),
            "primary_metric": self.primary_metric, "n_queries": self.n_queries,
            "blank_queries": self.blank_queries, "best_model": self.best_model,
            "notes": list(self.notes), "rows": [r.to_json() for r in self.rows],
            "published": self.published,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Table:
        return cls(
            d["dataset"], d["run_id"], d["unfinished"], d["run_dir"], d["run_config"],
            d["run_timestamp"], d["profile"], d["split"], list(d["seeds"]), list(d["metrics"]),
            d["primary_metric"], d["n_queries"], d["blank_queries"], d["best_model"],
            list(d["notes"]), [Row.from_json(r) for r in d["rows"]], d["published"],
        )


#: The keys of the statistics a table holds as :data:`Number` (a finite number or ``null``):
#: read from the field types above, so a new statistic is checked by the document reader too.
NUMBER_FIELDS: frozenset[str] = frozenset(
    f.name for cls in (SeedStats, MetricCell, FitTime, PairedTest) for f in fields(cls)
    if f.type == "Number")
