"""Scores → reference metrics, in the long tables of a run directory.

Every number in ``metrics.csv`` and ``per_query.parquet`` comes from the reference evaluator,
:func:`bench.metrics.evaluate`, under the run's profile. For NDCG
metrics of a split with blank queries (no relevant document; the profile leaves them out of the
mean, so their per-query value is NaN), two more rows give the mean with blank queries scored 0
(profile ``<profile>-blank0``) and 1 (``<profile>-blank1``): the conventions of sklearn /
trec_eval and of LightGBM / XGBoost respectively.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.letor import LetorData
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, parse_metrics
from bench.metrics.diversity import is_diversity
from bench.metrics.families import is_family
from bench.metrics.profiles import Profile
from bench.metrics.qualified import refuse_homonyms
from bench.runs.layout import BLANK_VARIANTS


def expand_metrics(names: Sequence[str] | str, profile: Profile | None = None) -> tuple[str, ...]:
    """Canonical metric names, parsed and validated by :func:`bench.metrics.parse_metrics`.

    ``"ndcg@1,3,5,10"`` or ``["NDCG@1,3", "precision@10 mrr"]`` → ``("ndcg@1", "ndcg@3",
    "p@10", "mrr")``: one parser for the evaluator and for run configs, so a run fails on an
    unknown name when its config is loaded, before any training, and the names in
    ``metrics.csv`` are the evaluator's own. A run evaluates under one profile (its
    ``profile``), so names that bring their own (trec_eval and ir_measures spellings,
    ``PROFILE:NAME``) are refused here, before any training; so, given the run's ``profile``, is
    a name its tool spells for another metric (RecBole's ``AUC``: ``qualified.ROW_HOMONYMS``).
    """
    specs = parse_metrics(names)
    if profile is not None:
        refuse_homonyms(specs, profile, rows=True)
    if any(is_diversity(s) for s in specs):  # alpha_ndcg: TREC subtopic qrels, no LETOR labels
        raise ConfigError(f"{', '.join(s.name for s in specs if is_diversity(s))}: needs "
                          "subtopic qrels; evaluate a run's scores with ltrbench evaluate --qrels")
    other = [s.name for s in specs if s.qualified]
    if other:
        raise ConfigError(
            f"a run's metrics are ltrbench names under the run's profile; these names bring "
            f"their own profile: {', '.join(other)} (evaluate a run's scores with them "
            "through ltrbench evaluate, or set the run's profile and use ltrbench names: ndcg@10, map@10, p@10, recall@10)")
    return tuple(dict.fromkeys(spec.name for spec in specs))  # two spellings, one metric


class MetricNameWarning(UserWarning):
    """A run's metric named by another spelling than its canonical one (its files use the latter)."""


def run_metrics(names: Sequence[str] | str, where: str = "metrics") -> tuple[str, ...]:
    """:func:`expand_metrics` for a run's ``metrics`` as the user typed them (``where``: the key
    or option), saying with a :class:`MetricNameWarning` which canonical name each other
    spelling becomes in the run's files (``metrics.csv``, ``per_query.parquet``, the tables:
    ``hit@3`` is ``hits@3``) and which spellings are one metric, one column (``NDCG@10`` and
    ``ndcg@10``): a program reading the files back finds the names it is told."""
    canonical = expand_metrics(names)
    spelled: dict[str, list[str]] = {}
    for spec in parse_metrics(names):
        spelled.setdefault(spec.name, [])
        if spec.key not in spelled[spec.name]:
            spelled[spec.name].append(spec.key)
    notes = [f"{' and '.join(map(repr, keys))} are one metric, one column {name!r}"
             if len(keys) > 1 else f"{keys[0]!r} is {name!r}"
             for name, keys in spelled.items() if keys != [name]]
    try:  # one rule with `evaluate` (by the key, naming the items that give it)
        parse_metrics(names, repeated="refuse")
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if notes:
        warnings.warn(f"{where}: a run's files and tables (metrics.csv, per_query.parquet, the "
                      f"leaderboards) name each metric by its canonical name: "
                      f"{'; '.join(notes)}", MetricNameWarning, stacklevel=3)
    return canonical


def evaluate_scores(
    data: LetorData,
    scores: NDArray[np.float64],
    *,
    metrics: Sequence[str],
    profile: Profile | str,
    label: str | None = None,
) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Reference metrics of ``scores`` on ``data``.

    ``profile`` is the run's resolved :class:`~bench.metrics.profiles.Profile` (a name is looked
    up); ``label`` is what the rows' ``profile`` column says (the config's spelling; default the
    name given, else the profile's name). Returns ``(rows, per_query)``: ``rows`` are
    ``{"metric", "value", "profile"}`` dicts (the mean under ``profile``, plus the blank-query
    variants :data:`bench.runs.layout.BLANK_VARIANTS` described in the module docstring);
    ``per_query`` is a long frame ``qid, metric, value`` (NaN for queries the profile excludes).
    """
    if label is None:
        label = profile if isinstance(profile, str) else profile.name
    result = evaluate(
        data.y,
        np.asarray(scores, dtype=np.float64),
        qid=data.qid,
        metrics=tuple(metrics),
        profile=profile,
        per_query=True,
    )
    rows = [
        {"metric": m, "value": float(result.metrics[m]), "profile": label} for m in metrics
    ]
    pq = result.per_query
    if pq is None:
        raise ConfigError("the evaluator returned no per-query table (per_query=True was asked)")
    long = pq.melt(id_vars=["qid"], value_vars=list(metrics), var_name="metric", value_name="value")
    long["value"] = long["value"].astype(np.float64)
    diag = getattr(result, "diagnostics", None)
    for m in metrics:
        if not is_family(m, "ndcg"):
            continue
        values = pq[m].to_numpy(dtype=np.float64)
        blank = np.isnan(values)
        if not blank.any():
            continue
        for variant in BLANK_VARIANTS:
            # the evaluator's own figure when it reports one, else the plain mean with blanks filled
            reported = getattr(diag, f"mean_blank_as_{int(variant.fill)}", None) or {}
            value = reported.get(m, float(np.where(blank, variant.fill, values).mean()))
            rows.append({"metric": m, "value": float(value), "profile": variant.label(label)})
    return rows, long[["qid", "metric", "value"]]


def check_scorable(parts: Sequence[tuple[str, LetorData]], *, metrics: Sequence[str],
                   profile: Profile) -> None:
    """Each evaluated split's labels under the run's profile, before any model is trained: a
    label the profile refuses (above ``recbole``'s 1, not an integer under an exponential gain)
    is one :class:`~bench.errors.DataError` naming the split and its file, not a failure after
    the first fit that names an internal row only. The check is the evaluation itself (constant
    scores), so it refuses exactly what scoring the split would."""
    for split, data in parts:
        try:
            with warnings.catch_warnings():  # constant scores tie everywhere: a check says
                warnings.simplefilter("ignore")  # nothing of them (the real scoring warns)
                evaluate(data.y, np.zeros(data.n_rows, dtype=np.float64), qid=data.qid,
                         metrics=tuple(metrics), profile=profile)
        except DataError as exc:
            raise DataError(f"{split} split: {exc.reason} (profile {profile.name!r} evaluates "
                            f"this split)", path=exc.path or data.source or None, row=exc.row,
                            column=exc.column) from None
