"""Several TREC runs against one set of qrels: means with bootstrap intervals, paired tests vs the best.

``compare_runs(qrels, {"bm25": "bm25.run", "dense": frame}, metrics="ndcg@10 map")`` evaluates
every run with :func:`bench.metrics.evaluate_trec` under one profile, then compares them with the
statistics the leaderboards use (:mod:`bench.report.stats`):

* **Queries: one set for every metric and every run.** Each run is evaluated under the profile
  of each metric (the call's, or a peer name's own when no profile is given: see
  :func:`bench.metrics.qualified.resolve`), which selects its queries (trec_eval: the run's
  queries that have qrels; trec_eval -c / ``missing="zero"``: every judged qrels query, a query
  without a run line scoring 0). The comparison then uses the queries *every metric of every run*
  was evaluated on, so that adding a metric can never change the queries another metric is
  averaged over (issue 19: under ``trec_eval-c``, ``ndcg_cut_10`` alone and ``ndcg_cut_10,map``
  once picked different winners). ``missing`` chooses how a query one run did not answer is
  treated: ``"drop"`` (left out of every run and metric: a paired test compares two systems on
  the same query, and a query one run did not answer has no observed value to pair) or
  ``"zero"`` (scored 0, as ``trec_eval -c``: the call's profile with ``missing="zero"``); the
  default is each metric's profile's own rule, and :attr:`RunComparison.missing` says which
  one was applied (``nDCG@10`` alone under ``trec_eval`` scores a query a run lacks 0, as
  ir_measures: ``zero``); ``"drop"`` asked for drops such a query for every metric. The queries dropped are counted and named
  (:attr:`RunComparison.dropped`, per run :attr:`RunComparison.left_out`); means in the
  comparison are over the common queries, so they can differ from a run's own ``evaluate``
  mean. A query without a value under the profile (a blank query the profile excludes: NaN) is
  left out of that metric's mean and tests, as in the leaderboards, for *every* run when it has
  no value in one (:attr:`RunComparison.no_value`): under ``ltrbench`` (ideal DCG from the
  retrieved list) a run that retrieves no relevant document of a query is blank there, and
  its mean over the other queries once beat a run that answered it.
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

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.equality import same_value
from bench.data.jsonio import json_number
from bench.data.trec import Qrels
from bench.data.trec_objects import QrelsInput, RunInput, as_qrels, as_run
from bench.errors import ConfigError, DataError, choice_hint, spelled_choice
from bench.metrics import evaluate_trec, parse_metrics
from bench.metrics.diversity import is_diversity, subtopic_qrels
from bench.metrics.families import FAMILIES, best_is_lowest, refuse_no_quality
from bench.metrics.missing import MissingQueriesWarning, missing_query_ids
from bench.metrics.names import MetricSpec
from bench.metrics.profiles import PROFILES, Profile, given_profile
from bench.metrics.qualified import refuse_homonyms, resolve, spec_profile
from bench.report import stats
from bench.report.compare_checks import (
    RESERVED_NAMES,
    check_arguments,
    check_files,
    check_rules,
    no_common_queries,
)
from bench.report.compare_said import say_again

#: What :class:`RunComparison` says about the queries it uses, per ``missing`` rule.
QUERY_RULES = {
    "drop": ("queries common to all runs and all metrics (each selected by its metric's profile; "
             "a query missing from a run is dropped from every run and metric, never scored 0)"),
    "zero": ("every judged qrels query, a run without a line for it scoring 0 (missing zero, as "
             "trec_eval -c); a query some metric or run was not evaluated on is dropped from all"),
}
#: The rule of the default comparison (kept for callers of the first release).
QUERY_RULE = QUERY_RULES["drop"]
MISSING_RULES = tuple(QUERY_RULES)
#: How many dropped query ids the summaries name (the count is always given).
SHOWN_DROPPED = 5


@dataclass(frozen=True, eq=False)
class RunComparison:
    """The result of :func:`compare_runs`; arrays are indexed by run (in :attr:`names` order).

    ``values[metric]`` is ``(n_runs, n_queries)`` over :attr:`qids`; ``mean``/``ci_low``/``ci_high``
    map a metric to ``(n_runs,)`` arrays; ``versus`` holds the paired tests on :attr:`primary`
    (NaN p-values in the best run's own row). ``dropped``: every query of the runs or the
    qrels that has a judgment and is not among :attr:`qids` (a run lacks it, or no run has it).
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
    metric_profiles: dict[str, str]
    missing: str
    dropped: list[str]
    no_value: dict[str, list[str]] = field(default_factory=dict)
    """Per metric, the common queries without a value in some run (a blank query of the
    profile), left out of that metric's means and tests for every run."""

    def __eq__(self, other: object) -> bool:
        """Field by field, arrays by value (:func:`bench.data.equality.same_value`): the
        generated ``__eq__`` raised ``ValueError`` on its arrays."""
        return same_value(self, other) if isinstance(other, RunComparison) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @property
    def query_rule(self) -> str:
        """The query rule in words (printed by the command, in the JSON and the CSV)."""
        return QUERY_RULES[self.missing]

    def dropped_text(self, ids: list[str] | None = None) -> str:
        """``"q3, q7, ..."``: the first :data:`SHOWN_DROPPED` of ``ids`` (default: dropped); an
        id holding a control or invisible character (an ESC sequence, a right-to-left override
        that would act on the terminal) shown escaped, ``'q\\x1b[2J'``."""
        from bench.data.look_alike import invisible

        ids = self.dropped if ids is None else ids
        shown = [q if all(c.isprintable() and not invisible(c) for c in q) else ascii(q)
                 for q in map(str, ids[:SHOWN_DROPPED])]
        return ", ".join(shown) + (", ..." if len(ids) > SHOWN_DROPPED else "")

    @property
    def best(self) -> str:
        """The name of the run with the best mean of the primary metric, the highest (the lowest
        for ARP, a rank: ``Family.lower_is_better``), the first of those tied at it: see
        :attr:`tied_with_best`."""
        return self.names[self.versus.best]

    @property
    def tied_with_best(self) -> list[str]:
        """The other runs whose mean of the primary metric equals the best one's, up to rounding
        (:func:`bench.report.stats.same_number`): "best" is then the first of equals, no win."""
        means = self.mean[self.primary]
        top = means[self.versus.best]
        return [n for i, n in enumerate(self.names)
                if i != self.versus.best and stats.same_number(means[i], top)]

    def to_frame(self) -> pd.DataFrame:
        """One row per run: ``run``, per metric its mean, ``<metric> ci_low``/``ci_high``, then
        ``best``, ``tied_with_best`` (a run whose primary mean equals the best's: no win) and
        the paired tests on the primary metric (``p_randomization``,
        ``p_randomization_holm``, ``p_t``, ``p_t_holm``; NaN for the best run) and ``n_queries``
        (the queries the test used); then per metric ``<metric> profile`` (the profile it was
        computed under), ``missing`` (the query rule), ``n_dropped`` and ``dropped`` (the
        first dropped query ids, the same in every row), ``n_left_out`` (this run's) and
        ``no_value`` (per metric, the common queries left out of it: :meth:`no_value_text`)."""
        cols: dict[str, Any] = {"run": self.names}
        for m in self.metrics:
            cols[m] = self.mean[m]
            cols[f"{m} ci_low"] = self.ci_low[m]
            cols[f"{m} ci_high"] = self.ci_high[m]
        v = self.versus
        cols["best"] = np.arange(len(self.names)) == v.best
        cols["tied_with_best"] = [n in self.tied_with_best for n in self.names]
        cols.update(p_randomization=v.p_randomization, p_randomization_holm=v.p_randomization_holm,
                    p_t=v.p_t, p_t_holm=v.p_t_holm, n_queries=v.n_queries)
        for m in self.metrics:
            cols[f"{m} profile"] = self.metric_profiles[m]
        cols.update(missing=self.missing, n_dropped=len(self.dropped),
                    dropped=self.dropped_text(),
                    n_left_out=[len(self.left_out[n]) for n in self.names],
                    no_value=self.no_value_text())
        return pd.DataFrame(cols)

    def no_value_text(self) -> str:
        """``"ndcg@10: 2 (q7, ...)"`` per metric with common queries left out of it for every
        run (:attr:`no_value`), ``"; "``-joined; ``""`` when none: the CSV said only the
        dropped queries, its means over fewer queries than the common ones without a word."""
        return "; ".join(f"{m}: {len(ids)} ({self.dropped_text(ids)})"
                         for m, ids in self.no_value.items())

    def per_query_frame(self) -> pd.DataFrame:
        """Long table of the compared values: ``qid``, ``metric``, ``profile`` (the metric's),
        then one column per run."""
        parts = [pd.DataFrame({"qid": self.qids, "metric": m, "profile": self.metric_profiles[m],
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
        return {"profile": self.profile, "metric_profiles": dict(self.metric_profiles),
                "primary": self.primary, "best": self.best,
                "tied_with_best": self.tied_with_best,
                "n_queries": int(self.qids.shape[0]), "missing": self.missing,
                "queries": self.query_rule, "n_dropped": len(self.dropped),
                "dropped": self.dropped, "no_value": dict(self.no_value), "runs": runs,
                "statistics": self.statistics()}

    def statistics(self) -> str:
        """The statistics in words (printed under the table)."""
        return (f"means over queries with a {stats.confidence_percent(self.confidence)}% "
                f"percentile bootstrap interval ({self.n_bootstrap} resamples, seed {self.seed}); "
                f"paired {self.primary} vs the best run (the {self._best_word()} mean): randomization ({self.n_permutations} "
                "sign flips, exact when 2^n is fewer) and t (scipy.stats.ttest_rel), each "
                f"Holm-corrected over {len(self.names) - 1} comparison(s){self._undefined_t()}")

    def _best_word(self) -> str:
        """``lowest`` for a lower-is-better primary metric (fall-out, ARP), else ``highest``."""
        try:
            family = parse_metrics(self.primary)[0].family
        except ConfigError:  # a key spelled as a dotted list's item (P_5): a quality measure
            return "highest"
        return "lowest" if best_is_lowest(family) else "highest"

    def _undefined_t(self) -> str:
        """Where the t statistic is undefined (every difference one non-zero number, no
        variance): ``p_t`` is NaN there, said here with the randomization test's p."""
        v = self.versus
        best = self.values[self.primary][v.best]
        notes = []
        for row, n, d in stats.constant_differences(best, self.values[self.primary]):
            if row != v.best:
                notes.append(f"{self.names[row]}: all {n} differences to the best run equal "
                             f"({d:+.6g}), t undefined (no variance), randomization p = "
                             f"{float(v.p_randomization[row]):.4g}")
        return "; " + "; ".join(notes) if notes else ""


def compare_runs(
    qrels: QrelsInput,
    runs: Mapping[str, RunInput],
    *,
    metrics: str | Iterable[str],
    profile: str | Profile | None = None,
    missing: str | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 1000,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Evaluate each run against ``qrels`` and compare them (see the module docstring).

    ``qrels`` and every run may be anything :func:`bench.metrics.evaluate_trec` takes (a TREC
    file, a DataFrame, a dict of dicts, a ranx object). ``profile`` as in ``evaluate_trec``
    (default ``trec_eval``; left out, peer names keep their own profiles). ``missing``:
    ``"drop"`` or ``"zero"`` (default: the profile's own rule). The primary metric is the first
    of ``metrics`` (after expansion: ``"ndcg@5,10"`` -> ``ndcg@5``); metrics are keyed by the
    user's spellings. Defaults are the leaderboard's
    (:class:`bench.report.build.LeaderboardOptions`: 1000 bootstrap resamples, 10 000 sign
    flips, seed 0, 95%).

    Raises:
        ConfigError: fewer than two runs, a pointwise primary metric, an unknown ``missing``.
        DataError: a run that cannot be evaluated (the message names it), no query common to all
            runs.
    """
    check_arguments(runs, confidence, n_bootstrap, n_permutations, seed)
    # NumPy scalars as the Python numbers they hold: the comparison records plain values
    confidence, n_bootstrap = float(confidence), int(n_bootstrap)
    n_permutations, seed = int(n_permutations), int(seed)
    metrics = _metric_names(metrics)
    given, call, mode = _profile_and_missing(profile, missing)
    asked = parse_metrics(metrics, repeated="refuse")  # once: keys, families, diversity read it
    keys = _ranking_keys(asked)
    specs = resolve(asked, call, explicit=given is not None)
    refuse_homonyms(specs, call)  # every name against the profile before any file is read
    check_files(runs)
    subtopics = any(is_diversity(s) for s in asked)  # alpha_ndcg: subtopic qrels
    loaded = subtopic_qrels(qrels) if subtopics else as_qrels(qrels)
    tables, scored, metric_profiles, answered, said = _evaluate_runs(loaded, runs, metrics,
                                                                     given, keys)
    names = list(tables)
    # each metric's own rule: recommenders scores a missing user 0 in ndcg only
    check_rules(keys, [spec_profile(s, call).missing_for(s.family) for s in specs],
                [s.explicit for s in specs], missing, mode, names, scored, answered,
                metric_profiles)
    every, common_set = _common_queries(scored, answered, missing)
    common = np.asarray(sorted(common_set), dtype=str)
    mode = _rule_applied(mode, missing, common_set, answered)
    say_again(said, mode)
    left_out = {n: sorted(every[n] - common_set) for n in names}
    # a judged query no run answered is out of the comparison too (the runs' warnings said
    # so): named with the others, so that the queries compared plus those dropped are every
    # query a run or the qrels hold that has a judgment
    judged = set(np.unique(loaded.qid).astype(str).tolist())
    dropped = sorted((set.union(*every.values()) | judged) - common_set)
    values = {k: np.vstack([tables[n].loc[common, k].to_numpy(dtype=np.float64) for n in names])
              for k in keys}
    no_value = _shared_blanks(values, common)
    stacked = np.vstack([values[k] for k in keys])
    ci = stats.bootstrap_ci(stacked, n_resamples=n_bootstrap, confidence=confidence, seed=seed,
                            ids=common)  # means added up as evaluate_trec adds them
    n_runs, primary = len(names), keys[0]
    if np.isnan(values[primary]).all():
        raise DataError(f"no query has a {primary} value in every run (a query blank in one "
                        f"run under profile {call.name!r} is left out of all): nothing to compare")
    versus = stats.compare_with_best(values[primary], n_resamples=n_permutations, seed=seed,
                                     higher_is_better=not best_is_lowest(asked[0].family))
    mean, ci_low, ci_high = _family_means(asked, keys, values, ci, n_runs)
    return RunComparison(
        names=names, metrics=keys, primary=primary, profile=call.name, qids=common,
        values=values, mean=mean, ci_low=ci_low, ci_high=ci_high, versus=versus,
        evaluated={n: len(every[n]) for n in names},
        left_out=left_out, confidence=confidence, n_bootstrap=n_bootstrap,
        n_permutations=n_permutations, seed=seed, metric_profiles=metric_profiles,
        missing=mode, dropped=dropped, no_value=no_value,
    )


def _common_queries(scored: Mapping[str, list[set[str]]], answered: Mapping[str, set[str]],
                    missing: str | None) -> tuple[dict[str, set[str]], set[str]]:
    """Each run's evaluated queries and the queries every run has a value on for every metric
    (under ``missing="drop"``, also answered by every run: a metric of its own zero profile,
    nDCG@10, drops them too); no query in common is an error."""
    every = {n: set.union(*scored[n]) for n in scored}
    common = set.intersection(*(set.intersection(*scored[n]) for n in scored))
    if missing == "drop":
        common = {q for q in common if all(q in mine for mine in answered.values())}
    if not common:  # which runs: named (queries answered too, under "drop")
        raise no_common_queries({n: every[n] & answered.get(n, every[n]) for n in every})
    return every, common


def _profile_and_missing(profile: str | Profile | None,
                         missing: str | None) -> tuple[str | Profile | None, Profile, str]:
    """The profile handed to ``evaluate_trec`` (``profile``, or a copy with ``missing``'s rule),
    the profile it resolves to, and the missing-query rule (``drop`` / ``zero``)."""
    call = given_profile(profile if profile is not None else "trec_eval")
    missing = None if missing is None else str(spelled_choice(missing, MISSING_RULES, "missing"))
    if missing is not None and missing not in MISSING_RULES:
        raise ConfigError(f"unknown missing rule {missing!r}; {choice_hint(missing, MISSING_RULES)}"
                          f"valid: {', '.join(MISSING_RULES)} "
                          "(drop: a query a run lacks is left out of every run; zero: scored 0)")
    mode = missing or ("zero" if call.missing == "zero" else "drop")
    given: str | Profile | None = None if profile is None else call
    if mode != call.missing:
        given = call = _with_missing(call, mode)
    return given, call, mode


def _ranking_keys(specs: list[MetricSpec]) -> list[str]:
    """The metric keys (the user's spellings, expanded); every one a ranking metric whose mean
    a comparison can give (:func:`_family_means`), the primary one with a best value."""
    if specs[0].pointwise:
        raise ConfigError(f"the primary (first) metric {specs[0].key!r} is not a ranking metric")
    pointwise = [s.key for s in specs if s.pointwise]
    if pointwise:  # its per-query mean is not its value (a root of a mean over all rows)
        raise ConfigError(f"{pointwise[0]!r} is a pointwise error of scores against labels, not "
                          "a ranking metric: a run comparison averages per-query values, which "
                          "would not be its value (evaluate one run for it)")
    for spec in specs:
        how = FAMILIES[spec.family].mean if spec.family in FAMILIES else "mean"
        if how == "documents":
            _refuse_weighted(spec.key, "each query's documents")
    refuse_no_quality(specs[0].family, specs[0].key, "the primary (first) metric")
    return [s.key for s in specs]


def _metric_names(metrics: str | Iterable[str]) -> str | list[str]:
    """``metrics`` read once: a generator is parsed again for every run (the second reading
    found it empty: "no metric names given"), and a set of several names has no order, so its
    first name (the primary metric, which picks the best run) would change between runs of
    Python (``PYTHONHASHSEED``): a :class:`ConfigError` asking for a list."""
    if isinstance(metrics, str):
        return metrics
    if isinstance(metrics, set | frozenset) and len(metrics) > 1:
        raise ConfigError(f"metrics is a set {sorted(map(str, metrics))}: a set has no order, and "
                          "the first metric is the primary one that picks the best run; give a "
                          "list or a text such as 'ndcg@10 map'")
    if not isinstance(metrics, Iterable):
        return metrics  # parse_metrics says what it expected
    return list(metrics)


def _refuse_weighted(key: str, by: str) -> None:
    """A metric whose mean weighs queries (by ``by``) is refused: the comparison's means,
    intervals and tests are over queries weighted alike, which would not be its value."""
    raise ConfigError(f"{key!r}: its mean weighs queries by {by}, while a run comparison "
                      "weighs every query alike (its means, intervals and tests would not be "
                      f"{key}'s value): evaluate each run for it (evaluate_trec, or ltrbench "
                      "evaluate with one --run)")


def _family_means(specs: list[MetricSpec], keys: list[str],
                  values: dict[str, NDArray[np.float64]], ci: stats.BootstrapCI,
                  n_runs: int) -> tuple[dict[str, NDArray[np.float64]], ...]:
    """Per metric, the ``(n_runs,)`` means and interval bounds as the metric's family averages
    (:func:`bench.metrics.aggregate.family_mean`): the bootstrap's per-query means as they are,
    a count's (``num_q``, ``num_ret``: ``mean="sum"``) times the queries with a value (the sum
    over the compared queries), a geometric mean's (``gm_map``, whose per-query value is the
    logarithm, as ``trec_eval -q``) exponentiated (exp is increasing: the bounds stay the
    percentiles). Before, ``gm_map`` printed the mean of the logarithms (-0.62 for 0.54) and
    ``num_q`` 1.0 for 2 queries under the names that evaluate_trec gives as 0.54 and 2."""
    out: tuple[dict[str, NDArray[np.float64]], ...] = ({}, {}, {})
    kinds = {s.key: FAMILIES[s.family].mean if s.family in FAMILIES else "mean"
             for s in specs}
    every = stats.family_ci(ci, [kinds[k] for k in keys for _ in range(n_runs)],
                            np.concatenate([(~np.isnan(values[k])).sum(axis=1) for k in keys]))
    for j, k in enumerate(keys):
        for d, g in zip(out, every, strict=True):
            d[k] = g[j * n_runs:(j + 1) * n_runs]
    return out


def _evaluate_runs(
    q: Qrels, runs: Mapping[str, RunInput], metrics: str | Iterable[str],
    given: str | Profile | None, keys: list[str],
) -> tuple[dict[str, pd.DataFrame], dict[str, list[set[str]]], dict[str, str], dict[str, set[str]],
           list[tuple[warnings.WarningMessage, str, NDArray[Any], str]]]:
    """Each run evaluated per query: its table indexed by qid, per metric the queries that
    received a value, each metric's profile (the same for every run), the judged queries
    each run has a line for (each run read once) and the warnings its evaluation issued (with
    the run's path and the qrels queries it lacks), for :func:`bench.report.compare_said.say_again`."""
    tables: dict[str, pd.DataFrame] = {}
    scored: dict[str, list[set[str]]] = {}
    metric_profiles: dict[str, str] = {}
    answered: dict[str, set[str]] = {}
    said: list[tuple[warnings.WarningMessage, str, NDArray[Any], str]] = []
    judged = set(np.unique(q.qid).astype(str).tolist())
    for name, run in runs.items():
        try:
            try:
                read = as_run(run)
            except ConfigError as exc:  # 'run: expected a path ...': which of the runs
                raise ConfigError(f"run {name!r}: {exc}") from None
            with warnings.catch_warnings(record=True) as caught:  # said as the table applies
                warnings.simplefilter("always", MissingQueriesWarning)
                result = evaluate_trec(q, read, metrics=metrics, profile=given, per_query=True)
            lacking = missing_query_ids(q.qid, read.qid)
            # named by the run's name: two dict runs were both "run dict", and two equal
            # warnings are said once by Python's default filter
            said.extend((w, f"run {name!r} ({read.path})", lacking, str(read.path))
                        for w in caught)
        except DataError as exc:
            raise DataError(f"run {name!r}: {exc}") from None
        assert result.per_query is not None
        assert result.metric_queries is not None
        answered[name] = set(np.unique(read.qid).astype(str).tolist()) & judged
        tables[name] = result.per_query.set_index(result.per_query["qid"].astype(str))
        scored[name] = [set(result.metric_queries[k].astype(str).tolist()) for k in keys]
        for k in keys:
            if k in result.metric_weights:  # ARP / OPA under list_weight="denominator"
                _refuse_weighted(k, f"their weight under profile {result.profile_of(k)!r}")
        metric_profiles = {k: result.profile_of(k) for k in keys}
    return tables, scored, metric_profiles, answered, said


def _rule_applied(mode: str, missing: str | None, common: set[str],
                  answered: dict[str, set[str]]) -> str:
    """The missing-query rule the comparison applied. Left to the profiles (``missing=None``),
    a peer name keeps its tool's rule (``nDCG@10``: ir_measures, trec_eval -c), so under the
    ``trec_eval`` profile, whose own rule is ``drop``, a comparison of ``nDCG@10`` alone scores
    a query a run lacks 0: it printed ``missing: drop`` ("never scored 0") beside those zeros;
    under ``trec_eval-c`` a ``lightgbm:ndcg@10`` alone drops them under ``missing: zero``. The
    rule is then ``zero`` when a compared query is one some run has no line for, ``drop`` when
    such queries were all left out, else the profile's (no run lacks a compared query)."""
    if missing is not None:
        return mode
    if any(common - mine for mine in answered.values()):
        return "zero"
    every = set.union(*answered.values())
    if any(mine != every for mine in answered.values()):
        return "drop"
    return mode


def _shared_blanks(values: dict[str, NDArray[np.float64]], qids: NDArray[np.str_]
                   ) -> dict[str, list[str]]:
    """Make each metric's blank queries (NaN: no value under the profile) the same for every
    run, in place, and return them per metric. A profile whose ideal DCG comes from the
    retrieved list (``ltrbench``) leaves a query blank for a run that retrieved none of its
    relevant documents: that run's mean would be over fewer queries than the others' (a run
    that misses a query entirely would tie a run that answers it). A query without a value in
    some run is left out of that metric for every run, and named."""
    out: dict[str, list[str]] = {}
    for k, v in values.items():
        blank = np.isnan(v).any(axis=0)
        if blank.any():
            v[:, blank] = np.nan
            out[k] = qids[blank].tolist()
    return out


def _with_missing(prof: Profile, mode: str) -> Profile:
    """``prof`` with ``missing=mode``: the registered profile that is exactly that (``trec_eval``
    with ``zero`` is ``trec_eval-c``), else ``prof`` renamed ``<name>+missing=<mode>``."""
    changed = replace(prof, missing=mode)
    for known in PROFILES.values():
        if replace(known, name=prof.name, description=prof.description) == changed:
            return known
    return replace(changed, name=f"{prof.name}+missing={mode}")


__all__ = ["MISSING_RULES", "QUERY_RULE", "QUERY_RULES", "RESERVED_NAMES", "RunComparison", "compare_runs"]
