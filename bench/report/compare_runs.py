"""Several TREC runs against one set of qrels: means with bootstrap intervals, paired tests vs the best.

``compare_runs(qrels, {"bm25": "bm25.run", "dense": frame}, metrics="ndcg@10 map")`` evaluates
every run with :func:`bench.metrics.evaluate_trec` under one profile, then compares them with the
statistics the leaderboards use (:mod:`bench.report.stats`):

* **Queries.** The profile's query selection applies to each run (trec_eval: the run's queries
  that have qrels). The comparison then uses the queries *common to all runs*: a paired test
  compares two systems on the same query, and a query one run did not answer has no observed
  value to pair (scoring it 0 would invent an observation, one the profile may not even define,
  and would make the test's result depend on the imputation rather than on the runs). The queries
  each run loses this way are listed (:attr:`RunComparison.left_out`); means in the comparison
  are over the common queries, so they can differ from a run's own ``evaluate`` mean when runs
  answer different queries. A query without a value under the profile (a blank query the
  profile excludes: NaN) is left out of that metric's mean and tests, as in the leaderboards.
* **Means** with a percentile bootstrap interval over queries (:func:`bench.report.stats.bootstrap_ci`,
  Efron & Tibshirani 1993, ch. 13), the same resampled queries for every run.
* **Paired tests** on the primary (first) metric of every run against the best run (highest mean):
  the randomization (sign-flip) test (Smucker, Allan & Carterette 2007) and the paired t-test
  (:func:`scipy.stats.ttest_rel`), each family Holm-corrected (Holm 1979) over the
  ``n_runs - 1`` comparisons (:func:`bench.report.stats.compare_with_best`).

ranx's ``compare`` reports every pair of runs with one test (Student's t by default, or Fisher's
randomization test) and marks p below ``max_p`` without a multiple-comparison correction; this
module compares each run with the best one only, reports both tests and corrects for the family.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.jsonio import json_number
from bench.data.trec_objects import QrelsInput, RunInput, as_qrels
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate_trec, get_profile, parse_metrics
from bench.metrics.profiles import Profile
from bench.report import stats

#: What :class:`RunComparison` says about the queries it uses (printed by the command).
QUERY_RULE = ("queries common to all runs (each run's queries selected by the profile; a query "
              "missing from a run is left out of the comparison, never scored 0)")


@dataclass(frozen=True)
class RunComparison:
    """The result of :func:`compare_runs`; arrays are indexed by run (in :attr:`names` order).

    ``values[metric]`` is ``(n_runs, n_queries)`` over :attr:`qids`; ``mean``/``ci_low``/``ci_high``
    map a metric to ``(n_runs,)`` arrays; ``versus`` holds the paired tests on :attr:`primary`
    (NaN p-values in the best run's own row).
    """

    names: list[str]
    metrics: list[str]
    primary: str
    profile: str
    qids: NDArray[np.str_]
    values: dict[str, NDArray[np.float64]]
    mean: dict[str, NDArray[np.float64]]
    ci_low: dict[str, NDArray[np.float64]]
    ci_high: dict[str, NDArray[np.float64]]
    versus: stats.VersusBest
    evaluated: dict[str, int]
    left_out: dict[str, list[str]]
    confidence: float
    n_bootstrap: int
    n_permutations: int
    seed: int

    @property
    def best(self) -> str:
        """The name of the run with the highest mean of the primary metric."""
        return self.names[self.versus.best]

    def to_frame(self) -> pd.DataFrame:
        """One row per run: ``run``, per metric its mean, ``<metric> ci_low``/``ci_high``, then
        ``best`` and the paired tests on the primary metric (``p_randomization``,
        ``p_randomization_holm``, ``p_t``, ``p_t_holm``; NaN for the best run) and ``n_queries``
        (the queries the test used)."""
        cols: dict[str, Any] = {"run": self.names}
        for m in self.metrics:
            cols[m] = self.mean[m]
            cols[f"{m} ci_low"] = self.ci_low[m]
            cols[f"{m} ci_high"] = self.ci_high[m]
        v = self.versus
        cols["best"] = np.arange(len(self.names)) == v.best
        cols.update(p_randomization=v.p_randomization, p_randomization_holm=v.p_randomization_holm,
                    p_t=v.p_t, p_t_holm=v.p_t_holm, n_queries=v.n_queries)
        return pd.DataFrame(cols)

    def per_query_frame(self) -> pd.DataFrame:
        """Long table of the compared values: ``qid``, ``metric``, then one column per run."""
        parts = [pd.DataFrame({"qid": self.qids, "metric": m,
                               **{n: self.values[m][i] for i, n in enumerate(self.names)}})
                 for m in self.metrics]
        return pd.concat(parts, ignore_index=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (NaN as ``null``)."""
        v = self.versus
        runs = []
        for i, name in enumerate(self.names):
            vs = None if i == v.best else {
                "metric": self.primary, "p_randomization": json_number(v.p_randomization[i]),
                "p_randomization_holm": json_number(v.p_randomization_holm[i]),
                "p_t": json_number(v.p_t[i]), "p_t_holm": json_number(v.p_t_holm[i]),
                "n_queries": int(v.n_queries[i])}
            runs.append({
                "name": name, "n_evaluated": self.evaluated[name], "left_out": self.left_out[name],
                "metrics": {m: {"mean": json_number(self.mean[m][i]),
                                "ci_low": json_number(self.ci_low[m][i]),
                                "ci_high": json_number(self.ci_high[m][i])} for m in self.metrics},
                "vs_best": vs})
        return {"profile": self.profile, "primary": self.primary, "best": self.best,
                "n_queries": int(self.qids.shape[0]), "queries": QUERY_RULE, "runs": runs,
                "statistics": self.statistics()}

    def statistics(self) -> str:
        """The statistics in words (printed under the table)."""
        return (f"means over queries with a {self.confidence:.0%} percentile bootstrap interval "
                f"({self.n_bootstrap} resamples, seed {self.seed}); paired {self.primary} vs the "
                f"best run: randomization ({self.n_permutations} sign flips, exact when 2^n is "
                "fewer) and t (scipy.stats.ttest_rel), each Holm-corrected over "
                f"{len(self.names) - 1} comparison(s)")


def compare_runs(
    qrels: QrelsInput,
    runs: Mapping[str, RunInput],
    *,
    metrics: str | Iterable[str],
    profile: str | Profile = "trec_eval",
    confidence: float = 0.95,
    n_bootstrap: int = 1000,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Evaluate each run against ``qrels`` and compare them (see the module docstring).

    ``qrels`` and every run may be anything :func:`bench.metrics.evaluate_trec` takes (a TREC
    file, a DataFrame, a dict of dicts, a ranx object). The primary metric is the first of
    ``metrics`` (after expansion: ``"ndcg@5,10"`` -> ``ndcg@5``). Defaults are the leaderboard's
    (:class:`bench.report.build.LeaderboardOptions`: 1000 bootstrap resamples, 10 000 sign
    flips, seed 0, 95%).

    Raises:
        ConfigError: fewer than two runs, a pointwise primary metric.
        DataError: a run that cannot be evaluated (the message names it), no query common to all
            runs.
    """
    if len(runs) < 2:
        raise ConfigError(f"comparing runs needs at least two, got {len(runs)}")
    prof = get_profile(profile)
    specs = parse_metrics(metrics)
    names_m = [s.name for s in specs]
    if specs[0].pointwise:
        raise ConfigError(f"the primary (first) metric {specs[0].name!r} is not a ranking metric")
    q = as_qrels(qrels)
    tables: dict[str, pd.DataFrame] = {}
    for name, run in runs.items():
        try:
            result = evaluate_trec(q, run, metrics=names_m, profile=prof, per_query=True)
        except DataError as exc:
            raise DataError(f"run {name!r}: {exc}") from None
        assert result.per_query is not None
        tables[name] = result.per_query.set_index("qid")
    names = list(tables)
    common = reduce(np.intersect1d, [t.index.to_numpy(dtype=str) for t in tables.values()])
    if common.shape[0] == 0:
        raise DataError("the runs have no query in common (after each run's queries without qrels "
                        "are left out): nothing to compare")
    left_out = {n: sorted(set(t.index.astype(str)) - set(common.tolist())) for n, t in tables.items()}
    values = {m: np.vstack([tables[n].loc[common, m].to_numpy(dtype=np.float64) for n in names])
              for m in names_m}
    stacked = np.vstack([values[m] for m in names_m])
    ci = stats.bootstrap_ci(stacked, n_resamples=n_bootstrap, confidence=confidence, seed=seed)
    k = len(names)
    primary = names_m[0]
    if np.isnan(values[primary]).all():
        raise DataError(f"no query has a {primary} value in any run: nothing to compare")
    versus = stats.compare_with_best(values[primary], n_resamples=n_permutations, seed=seed)
    return RunComparison(
        names=names, metrics=names_m, primary=primary, profile=prof.name,
        qids=np.asarray(common, dtype=str), values=values,
        mean={m: ci.mean[j * k:(j + 1) * k] for j, m in enumerate(names_m)},
        ci_low={m: ci.low[j * k:(j + 1) * k] for j, m in enumerate(names_m)},
        ci_high={m: ci.high[j * k:(j + 1) * k] for j, m in enumerate(names_m)},
        versus=versus, evaluated={n: int(t.shape[0]) for n, t in tables.items()},
        left_out=left_out, confidence=confidence, n_bootstrap=n_bootstrap,
        n_permutations=n_permutations, seed=seed,
    )


__all__ = ["QUERY_RULE", "RunComparison", "compare_runs"]
