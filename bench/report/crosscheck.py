"""Cross-check of the libraries' built-in ranking metrics against the reference evaluator.

For every trained LightGBM / XGBoost model and split (vali, test) of a run:

1. **Agreement.** The library's own ``ndcg@k`` (read from its eval log at the chosen iteration, and
   recomputed on the final scores by :func:`bench.runners.builtin.builtin_metric`) beside the
   reference evaluator :func:`bench.metrics.evaluate` under that library's profile. The absolute
   difference must be ≤ :data:`CHECK_TOL` (1e-6); a difference above :data:`EXACT_TOL` (1e-9)
   is labelled ``float32`` when re-evaluating with the scores rounded to float32 (or, for a
   float32 profile, kept in float64) brings the reference within 1e-9 of the built-in value, and
   ``rounding`` otherwise. Above 1e-6 it is a ``mismatch``: an error.
2. **Reconciliation.** The reference under the project's default profile (``ltrbench``), and the
   gap ``mean(library profile) - mean(default profile)`` split into reasons by walking from the
   library's :class:`~bench.metrics.Profile` to the default one, changing one field at a time
   with :func:`dataclasses.replace` (:data:`STEPS`)::

       empty (blank_query) → ties → gain → k_beyond_n / default_k (truncation) → score_dtype (float32)

   Each step's change of the mean is attributed to queries (:func:`step_contributions`), so the
   per-query contributions add up to the gap exactly (a telescoping sum). When a step changes
   the set of queries the mean runs over (``empty=None`` excludes blank queries), its
   contribution is defined as the change of the mean, and the excluded query ``q`` carries
   ``(mean over the kept queries - v_q) / n_before``. Whatever is left between the last step and
   the real default profile is the residual; a residual above 1e-9 (for the mean or any query)
   is an error.

Outputs ``results/<dataset>/crosscheck.md`` and ``crosscheck.json``; the JSON shape is
:meth:`CrosscheckResult.as_dict`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from bench.data.atomic import write_text
from bench.data.groups import offsets_from_qid
from bench.errors import DataError
from bench.metrics import Profile, get_profile
from bench.metrics import evaluate as reference_evaluate
from bench.report.runs import RunDir, dataset_slug, library_of
from bench.runners.builtin import builtin_metric

REASONS: tuple[str, ...] = ("blank_query", "ties", "gain", "truncation", "float32")

# (reason, Profile fields changed in that step).
STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("blank_query", ("empty",)),
    ("ties", ("ties",)),
    ("gain", ("gain",)),
    ("truncation", ("k_beyond_n", "default_k")),
    ("float32", ("score_dtype",)),
)

EXACT_TOL = 1e-9
CHECK_TOL = 1e-6
RESIDUAL_TOL = 1e-9
# A per-query value change smaller than this is rounding noise: it still enters the sums (so they
# telescope exactly) but does not mark the query as affected.
AFFECTED_TOL = 1e-12

LIBRARIES: tuple[str, ...] = ("lightgbm", "xgboost")
SPLITS: tuple[str, ...] = ("vali", "test")

Evaluate = Callable[..., Any]


ProfileLike = Profile | str  # a Profile, or the name of one (:func:`bench.metrics.get_profile`)


def _resolve(profile: ProfileLike) -> Profile:
    return get_profile(profile) if isinstance(profile, str) else profile


# --------------------------------------------------------------------------------------------
# Per-query values and the telescoping decomposition
# --------------------------------------------------------------------------------------------


def per_query_values(
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    metric: str,
    profile: ProfileLike,
    evaluate: Evaluate | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Per-query values (NaN = query excluded from the mean) and the evaluator's mean.

    Calls ``evaluate(labels, scores, group=sizes, metrics=[metric], profile=profile,
    per_query=True)`` and reads the ``metric`` column of ``.per_query`` in group order.
    """
    ev = reference_evaluate if evaluate is None else evaluate
    sizes = np.diff(np.asarray(offsets, dtype=np.int64))
    res = ev(
        np.asarray(labels),
        np.asarray(scores),
        group=sizes,
        metrics=[metric],
        profile=profile,
        per_query=True,
    )
    pq = res.per_query
    values = np.asarray(pq[metric], dtype=np.float64)
    if values.shape[0] != sizes.shape[0]:
        raise DataError(
            f"the evaluator returned {values.shape[0]} per-query values for {sizes.shape[0]} queries"
        )
    return values, float(res.metrics[metric]) if res.metrics.get(metric) is not None else math.nan


def _nanmean(x: NDArray[np.float64]) -> float:
    keep = ~np.isnan(x)
    return float(math.fsum(x[keep]) / keep.sum()) if keep.any() else math.nan


def step_contributions(
    before: ArrayLike, after: ArrayLike
) -> tuple[NDArray[np.float64], float]:
    """Per-query attribution of ``mean(after) - mean(before)`` (means over the non-NaN queries).

    With ``A``/``B`` the queries that have a value before/after and ``I = A ∩ B``, the change goes
    in three exact phases: drop ``A \\ I`` (query ``q`` carries ``(mean_I(before) - before_q) /
    |A|``), change the values on ``I`` (``(after_q - before_q) / |I|``), add ``B \\ I``
    (``(after_q - mean_I(after)) / |B|``). Each phase's terms sum to that phase's change of the
    mean, so the returned contributions sum to the total change. Returns ``(contributions,
    change)``; the change is NaN (and contributions NaN) when either mean is undefined.
    """
    a = np.asarray(before, dtype=np.float64)
    b = np.asarray(after, dtype=np.float64)
    in_a, in_b = ~np.isnan(a), ~np.isnan(b)
    both = in_a & in_b
    out = np.zeros(a.shape[0])
    na, nb, ni = int(in_a.sum()), int(in_b.sum()), int(both.sum())
    if na == 0 or nb == 0 or ni == 0:
        if na == nb == 0:
            return out, 0.0
        return np.full(a.shape[0], np.nan), math.nan
    mean_a_i = _nanmean(np.where(both, a, np.nan))
    mean_b_i = _nanmean(np.where(both, b, np.nan))
    dropped = in_a & ~both
    added = in_b & ~both
    out[dropped] = (mean_a_i - a[dropped]) / na
    out[both] = (b[both] - a[both]) / ni
    out[added] = (b[added] - mean_b_i) / nb
    return out, _nanmean(b) - _nanmean(a)


@dataclass
class Reconciliation:
    """The gap ``library_value - default_value`` of one ranking, split into reasons.

    ``reasons[r]`` is the part of the gap due to reason ``r``; ``sum(reasons) + residual == gap``
    (to rounding). ``per_query`` has one row per (query, reason) with a non-negligible change:
    columns ``query`` (position), ``qid``, ``reason``, ``before``, ``after`` (the query's value
    before/after that step; NaN = excluded) and ``contribution`` (its share of the gap).
    """

    metric: str
    library_profile: str
    default_profile: str
    library_value: float
    default_value: float
    gap: float
    reasons: dict[str, float]
    residual: float
    max_query_residual: float
    affected: dict[str, int]
    n_queries: int
    n_blank: int
    per_query: pd.DataFrame
    unexplained_fields: tuple[str, ...] = ()

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.library_value) or math.isnan(self.default_value))

    @property
    def explained(self) -> bool:
        """True when the residual (mean and every query) is ≤ 1e-9, or the gap is undefined."""
        if not self.defined:
            return True
        return abs(self.residual) <= RESIDUAL_TOL and self.max_query_residual <= RESIDUAL_TOL


def _field_names(profile: Profile) -> set[str]:
    return {f.name for f in dataclasses.fields(profile)}


def reconcile(
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    library_profile: ProfileLike,
    default_profile: ProfileLike = "ltrbench",
    metric: str = "ndcg@10",
    qid: ArrayLike | None = None,
    evaluate: Evaluate | None = None,
) -> Reconciliation:
    """Explain ``mean(library profile) - mean(default profile)`` for one ranking (see module doc).

    ``labels``/``scores`` are per row, ``offsets`` the group offsets (``n_queries + 1``), ``qid``
    the query id per group (default: 0..n_queries-1). Profiles are names or Profile instances.
    """
    lib = _resolve(library_profile)
    dflt = _resolve(default_profile)
    off = np.asarray(offsets, dtype=np.int64)
    n_q = off.shape[0] - 1
    qids = np.arange(n_q) if qid is None else np.asarray(qid)
    fields = _field_names(lib)

    profiles = [lib]
    reasons_order: list[str] = []
    current = lib
    for reason, names in STEPS:
        changes: dict[str, Any] = {
            f: getattr(dflt, f) for f in names if getattr(current, f) != getattr(dflt, f)
        }
        if changes:
            changes["name"] = f"{current.name}+{reason}"
            current = dataclasses.replace(current, **changes)
        profiles.append(current)
        reasons_order.append(reason)
    skip = {"name", "description"} | {f for _, names in STEPS for f in names}
    unexplained = tuple(
        sorted(f for f in fields if f not in skip and getattr(current, f) != getattr(dflt, f))
    )

    cache: dict[int, NDArray[np.float64]] = {}

    def _values(prof: Profile) -> NDArray[np.float64]:
        # Consecutive steps that change nothing share one Profile object: evaluate it once.
        if id(prof) not in cache:
            cache[id(prof)] = per_query_values(
                labels, scores, off, metric=metric, profile=prof, evaluate=evaluate
            )[0]
        return cache[id(prof)]

    values = [_values(p) for p in profiles]
    dflt_vals = _values(dflt)

    reasons: dict[str, float] = dict.fromkeys(REASONS, 0.0)
    affected: dict[str, int] = dict.fromkeys(REASONS, 0)
    frames: list[pd.DataFrame] = []
    for step, reason in enumerate(reasons_order):
        before, after = values[step], values[step + 1]
        contrib, change = step_contributions(before, after)
        # Gap convention: library - default, so a step's share is minus its change of the mean.
        share = -contrib
        reasons[reason] += -change if not math.isnan(change) else math.nan
        changed = _changed(before, after)
        affected[reason] += int(changed.sum())
        if changed.any():
            idx = np.flatnonzero(changed)
            frames.append(
                pd.DataFrame(
                    {
                        "query": idx,
                        "qid": qids[idx],
                        "reason": reason,
                        "before": before[idx],
                        "after": after[idx],
                        "contribution": share[idx],
                    }
                )
            )
    lib_vals, last_vals = values[0], values[-1]
    res_contrib, res_change = step_contributions(last_vals, dflt_vals)
    residual = -res_change if not math.isnan(res_change) else math.nan
    changed = _changed(last_vals, dflt_vals)
    max_q = float(np.nanmax(np.abs(dflt_vals - last_vals)[changed])) if changed.any() else 0.0
    if np.any(np.isnan(last_vals) != np.isnan(dflt_vals)):
        max_q = math.inf
    if changed.any():
        idx = np.flatnonzero(changed)
        frames.append(
            pd.DataFrame(
                {
                    "query": idx,
                    "qid": qids[idx],
                    "reason": "residual",
                    "before": last_vals[idx],
                    "after": dflt_vals[idx],
                    "contribution": -res_contrib[idx],
                }
            )
        )
    lib_mean, dflt_mean = _nanmean(lib_vals), _nanmean(dflt_vals)
    per_query = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["query", "qid", "reason", "before", "after", "contribution"])
    )
    return Reconciliation(
        metric=metric,
        library_profile=lib.name,
        default_profile=dflt.name,
        library_value=lib_mean,
        default_value=dflt_mean,
        gap=lib_mean - dflt_mean,
        reasons=reasons,
        residual=residual,
        max_query_residual=max_q,
        affected=affected,
        n_queries=n_q,
        n_blank=int(np.sum(np.isnan(dflt_vals) & ~np.isnan(lib_vals))),
        per_query=per_query,
        unexplained_fields=unexplained,
    )


def _changed(before: NDArray[np.float64], after: NDArray[np.float64]) -> NDArray[np.bool_]:
    nan_b, nan_a = np.isnan(before), np.isnan(after)
    with np.errstate(invalid="ignore"):
        moved = np.abs(after - before) > AFFECTED_TOL
    return (nan_b != nan_a) | (~nan_b & ~nan_a & moved)


# --------------------------------------------------------------------------------------------
# Built-in vs reference
# --------------------------------------------------------------------------------------------


@dataclass
class Check:
    """One built-in value beside the reference under the library's profile.

    ``source``: ``evallog`` (the library's eval log at the chosen ``iteration``) or ``recomputed``
    (``builtin_metric`` on the final scores). ``agreement``: ``exact`` (≤ 1e-9), ``float32``
    (≤ 1e-6 and explained by float32 rounding of the scores), ``rounding`` (≤ 1e-6, not explained
    by float32: e.g. a value logged with fewer digits), ``mismatch`` (> 1e-6: an error).
    """

    model: str
    library: str
    seed: int | str
    split: str
    metric: str
    source: str
    builtin: float
    reference: float
    abs_diff: float
    agreement: str
    iteration: int | None = None

    @property
    def ok(self) -> bool:
        return self.agreement != "mismatch"

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "library": self.library,
            "split": self.split,
            "metric": self.metric,
            "builtin": _num(self.builtin),
            "reference": _num(self.reference),
            "abs_diff": _num(self.abs_diff),
            "seed": self.seed,
            "source": self.source,
            "agreement": self.agreement,
            "iteration": self.iteration,
        }


def _num(x: Any) -> float | None:
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def classify_agreement(
    builtin: float,
    reference: float,
    *,
    float32_reference: float | None = None,
) -> tuple[float, str]:
    """``(abs_diff, agreement)`` per the tolerances of :class:`Check`.

    ``float32_reference``: the reference recomputed with the score precision flipped (float64
    scores rounded to float32, or float32 kept as float64); when the gap is in (1e-9, 1e-6] and
    that value is within 1e-9 of the built-in one, the agreement is ``float32``.
    """
    diff = abs(float(builtin) - float(reference))
    if math.isnan(diff):
        return diff, "mismatch"
    if diff <= EXACT_TOL:
        return diff, "exact"
    if diff <= CHECK_TOL:
        if float32_reference is not None and abs(builtin - float32_reference) <= EXACT_TOL:
            return diff, "float32"
        return diff, "rounding"
    return diff, "mismatch"


def _flipped_dtype_reference(
    labels: NDArray[Any],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    metric: str,
    profile: Profile,
    evaluate: Evaluate | None,
) -> float:
    other = "float64" if profile.score_dtype == "float32" else "float32"
    flipped = dataclasses.replace(profile, score_dtype=other)
    vals, _ = per_query_values(
        labels, scores, offsets, metric=metric, profile=flipped, evaluate=evaluate
    )
    return _nanmean(vals)


@dataclass
class ArrayCrosscheck:
    """Result of :func:`crosscheck_arrays`: the checks and the reconciliation of one ranking."""

    checks: list[Check]
    reconciliation: Reconciliation
    reference: float


def crosscheck_arrays(
    library: str,
    labels: ArrayLike,
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    metric: str = "ndcg@10",
    default_profile: ProfileLike = "ltrbench",
    library_profile: ProfileLike | None = None,
    qid: ArrayLike | None = None,
    logged: float | None = None,
    logged_iteration: int | None = None,
    recompute: bool = True,
    model: str = "",
    seed: int | str = 0,
    split: str = "",
    evaluate: Evaluate | None = None,
    builtin: Callable[..., float] | None = None,
) -> ArrayCrosscheck:
    """Cross-check one ranking (labels, scores, group offsets) of a ``library`` model.

    * ``recompute``: call ``builtin(library, labels, scores, offsets, metric)`` (default
      :func:`bench.runners.builtin.builtin_metric`) and compare it with the reference under the
      library's profile (``library_profile``, default the profile named ``library``);
    * ``logged``: a value from the library's eval log, compared the same way;
    * then :func:`reconcile` the library profile with ``default_profile``.
    """
    y = np.asarray(labels)
    s = np.asarray(scores, dtype=np.float64)
    off = np.asarray(offsets, dtype=np.int64)
    lib_prof = _resolve(library if library_profile is None else library_profile)
    ref_vals, ref_mean_reported = per_query_values(
        y, s, off, metric=metric, profile=lib_prof, evaluate=evaluate
    )
    reference = _nanmean(ref_vals)
    if not math.isnan(ref_mean_reported) and abs(reference - ref_mean_reported) > EXACT_TOL:
        raise DataError(
            f"the evaluator's mean {metric} ({ref_mean_reported!r}) differs from the mean of its "
            f"per-query values ({reference!r}) under profile {lib_prof.name}"
        )
    flipped: list[float] = []

    def _float32_ref() -> float:
        if not flipped:
            flipped.append(
                _flipped_dtype_reference(
                    y, s, off, metric=metric, profile=lib_prof, evaluate=evaluate
                )
            )
        return flipped[0]

    checks: list[Check] = []
    candidates: list[tuple[str, float, int | None]] = []
    if logged is not None and not (isinstance(logged, float) and math.isnan(logged)):
        candidates.append(("evallog", float(logged), logged_iteration))
    if recompute:
        value = float((builtin_metric if builtin is None else builtin)(library, y, s, off, metric))
        candidates.append(("recomputed", value, None))
    for source, value, iteration in candidates:
        diff = abs(value - reference)
        f32 = _float32_ref() if EXACT_TOL < diff <= CHECK_TOL else None
        diff, agreement = classify_agreement(value, reference, float32_reference=f32)
        checks.append(
            Check(
                model=model,
                library=library,
                seed=seed,
                split=split,
                metric=metric,
                source=source,
                builtin=value,
                reference=reference,
                abs_diff=diff,
                agreement=agreement,
                iteration=iteration,
            )
        )
    rec = reconcile(
        y, s, off,
        library_profile=lib_prof,
        default_profile=default_profile,
        metric=metric,
        qid=qid,
        evaluate=evaluate,
    )
    return ArrayCrosscheck(checks=checks, reconciliation=rec, reference=reference)


# --------------------------------------------------------------------------------------------
# A whole run
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    """The reconciliation of one (model, seed, split)."""

    model: str
    library: str
    seed: int | str
    split: str
    reconciliation: Reconciliation

    def as_dict(self) -> dict[str, Any]:
        r = self.reconciliation
        return {
            "model": self.model,
            "library": self.library,
            "seed": self.seed,
            "split": self.split,
            "metric": r.metric,
            "library_profile": r.library_profile,
            "default_profile": r.default_profile,
            "library_value": _num(r.library_value),
            "default_value": _num(r.default_value),
            "gap": _num(r.gap),
            "reasons": {k: _num(v) for k, v in r.reasons.items()},
            "residual": _num(r.residual),
            "queries_affected": dict(r.affected),
            "n_queries": r.n_queries,
            "n_blank": r.n_blank,
            "explained": r.explained,
        }


@dataclass
class CrosscheckResult:
    """Everything :func:`crosscheck_run` found; :meth:`as_dict` is the documented JSON shape."""

    dataset: str
    run_dir: str
    run_id: str
    metric: str
    default_profile: str
    checks: list[Check] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    blank_queries: dict[str, int | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No mismatch beyond 1e-6, no unexplained gap, nothing that could not be checked."""
        return not self.errors

    @property
    def reasons(self) -> dict[str, float | None]:
        """Contribution of each reason to the gap (library - default), mean over the cases."""
        out: dict[str, float | None] = {}
        for reason in REASONS:
            vals = [
                c.reconciliation.reasons[reason]
                for c in self.cases
                if c.reconciliation.defined
            ]
            out[reason] = _num(math.fsum(vals) / len(vals)) if vals else None
        return out

    def reason_queries(self) -> dict[str, int]:
        """Number of (model, seed, split, query) cells each reason changed."""
        return {
            r: int(sum(c.reconciliation.affected[r] for c in self.cases)) for r in REASONS
        }

    def top_queries(self, n: int = 25) -> pd.DataFrame:
        """The ``n`` per-query contributions largest in absolute value, over all cases."""
        frames = []
        for c in self.cases:
            pq = c.reconciliation.per_query
            if len(pq):
                frames.append(pq.assign(model=c.model, seed=c.seed, split=c.split))
        if not frames:
            return pd.DataFrame(
                columns=["model", "seed", "split", "qid", "reason", "before", "after", "contribution"]
            )
        allq = pd.concat(frames, ignore_index=True)
        allq = allq.iloc[np.argsort(-np.abs(allq["contribution"].to_numpy()), kind="stable")]
        return allq.head(n)[
            ["model", "seed", "split", "qid", "reason", "before", "after", "contribution"]
        ].reset_index(drop=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape::

            {"dataset": str, "checks": [{"model", "library", "split", "metric": "ndcg@10",
              "builtin", "reference", "abs_diff", "seed", "source", "agreement", "iteration"}],
             "blank_queries": {"train": n, "vali": n, "test": n},
             "reasons": {"blank_query": x, "ties": x, "gain": x, "truncation": x, "float32": x},
             "reason_queries": {reason: n}, "cases": [Case.as_dict()], "ok": bool,
             "errors": [str], "notes": [str], "run_id": str, "run_dir": str, "metric": str,
             "default_profile": str, "tolerances": {...}}

        ``reasons``: mean over (model, seed, split) cases of each reason's contribution to the gap
        ``library value - default value`` of the metric; ``null`` where no gap is defined.
        """
        return {
            "dataset": self.dataset,
            "checks": [c.as_dict() for c in self.checks],
            "blank_queries": dict(self.blank_queries),
            "reasons": self.reasons,
            "reason_queries": self.reason_queries(),
            "cases": [c.as_dict() for c in self.cases],
            "ok": self.ok,
            "errors": list(self.errors),
            "notes": list(self.notes),
            "run_id": self.run_id,
            "run_dir": self.run_dir,
            "metric": self.metric,
            "default_profile": self.default_profile,
            "tolerances": {"exact": EXACT_TOL, "check": CHECK_TOL, "residual": RESIDUAL_TOL},
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, allow_nan=False) + "\n"

    def to_markdown(self, *, top: int = 25) -> str:
        """``crosscheck.md``: agreement table, totals by reason, largest per-query contributions."""
        return _render_markdown(self, top=top)


def _split_frames(run: RunDir) -> tuple[pd.DataFrame, pd.DataFrame]:
    labels = run.table("labels.parquet")
    scores = run.table("scores.parquet")
    labels = labels.assign(split=labels["split"].astype(str))
    scores = scores.assign(split=scores["split"].astype(str), model=scores["model"].astype(str))
    return labels, scores


def _blank_queries(run: RunDir, labels: pd.DataFrame) -> dict[str, int | None]:
    """Blank queries (no label > 0) per split, from labels.parquet, else from the manifest."""
    out: dict[str, int | None] = {}
    for split in ("train", "vali", "test"):
        lab = labels[labels["split"] == split]
        if len(lab):
            mx = lab.groupby("qid", sort=False)["label"].max()
            out[split] = int((mx <= 0).sum())
        else:
            out[split] = _manifest_blank(run.manifest, split)
    return out


def _manifest_blank(manifest: Mapping[str, Any], split: str) -> int | None:
    """The blank-query count of ``split`` in the manifest (``dataset.summaries.<split>.blank_queries``,
    else any ``<split>: {blank_queries: n}`` mapping in it)."""
    keys = ("blank_queries", "n_blank_queries", "queries_without_relevant", "n_blank")
    ds = manifest.get("dataset")
    summaries = ds.get("summaries") if isinstance(ds, Mapping) else None
    if isinstance(summaries, Mapping) and isinstance(summaries.get(split), Mapping):
        value = summaries[split].get("blank_queries")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    stack: list[Any] = [manifest]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            sub = node.get(split)
            if isinstance(sub, Mapping):
                for k in keys:
                    if isinstance(sub.get(k), int | float) and not isinstance(sub.get(k), bool):
                        return int(sub[k])
            stack.extend(v for v in node.values() if isinstance(v, Mapping | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, Mapping | list))
    return None


def _chosen_iterations(run: RunDir) -> dict[tuple[str, str], int]:
    timings = run.table_or_empty("timings.csv")
    out: dict[tuple[str, str], int] = {}
    if "best_iteration" not in timings.columns:
        return out
    for _, row in timings.iterrows():
        v = pd.to_numeric(row["best_iteration"], errors="coerce")
        if pd.notna(v):
            out[(str(row["model"]), str(row["seed"]))] = int(v)
    return out


def _logged_value(
    log: pd.DataFrame, model: str, seed: str, split: str, metric: str, iteration: int | None
) -> tuple[float | None, int | None]:
    sub = log[
        (log["model"].astype(str) == model)
        & (log["seed"].astype(str) == seed)
        & (log["split"].astype(str) == split)
        & (log["metric"].astype(str) == metric)
    ]
    if sub.empty:
        return None, None
    it = int(sub["iteration"].max()) if iteration is None else iteration
    hit = sub[sub["iteration"] == it]
    if hit.empty:
        return None, it
    return float(hit["value"].iloc[-1]), it


def crosscheck_run(
    run_dir: str | Path,
    *,
    models: Sequence[str] | None = None,
    metric: str = "ndcg@10",
    default_profile: str | None = None,
    splits: Sequence[str] = SPLITS,
    evaluate: Evaluate | None = None,
    builtin: Callable[..., float] | None = None,
    recompute: bool = True,
) -> CrosscheckResult:
    """Cross-check every LightGBM/XGBoost model of a run directory (see the module docstring).

    Needs ``labels.parquet`` and ``scores.parquet`` (and ``evallog.csv`` / ``timings.csv`` for the
    eval-log values at the chosen iteration ``best_iteration``). ``models`` restricts the models
    (names, or library names: ``lightgbm`` selects every ``lightgbm-*``). The default profile is the
    run's profile (``ltrbench`` unless the config names another). Problems are collected in
    ``errors`` (the result is not ok); nothing is raised for a mismatch.
    """
    run = RunDir(Path(run_dir))
    labels, scores = _split_frames(run)
    datasets = run.datasets() if run.has("metrics.csv") else []
    cfg_ds = run.config.get("dataset")
    if datasets:
        dataset = datasets[0]
    elif isinstance(cfg_ds, dict):
        dataset = str(cfg_ds.get("name") or cfg_ds.get("spec") or run.run_id)
    else:
        dataset = str(cfg_ds or run.run_id)
    dflt_name = default_profile or run.profile
    result = CrosscheckResult(
        dataset=dataset,
        run_dir=str(run.path),
        run_id=run.run_id,
        metric=metric,
        default_profile=dflt_name,
    )
    result.blank_queries = _blank_queries(run, labels)
    log = run.table_or_empty("evallog.csv")
    chosen = _chosen_iterations(run)

    wanted = [str(m) for m in models] if models else None
    if wanted is not None and any(w in ("gbdt", "all") for w in wanted):
        wanted = None
    pairs = scores[["model", "seed"]].drop_duplicates()
    trained = [
        (str(m), s)
        for m, s in pairs.itertuples(index=False)
        if library_of(str(m)) in LIBRARIES
        and (wanted is None or str(m) in wanted or library_of(str(m)) in wanted)
    ]
    if wanted is not None:
        missing = sorted(
            w for w in wanted
            if not any(m == w or library_of(m) == w for m, _ in trained)
        )
        if missing:
            result.errors.append(f"no scores for model(s) {', '.join(missing)} in {run.path}")
    if not trained:
        result.errors.append(f"no LightGBM/XGBoost model with scores in {run.path}")
        return result

    for split in splits:
        lab = labels[labels["split"] == split].sort_values("row", kind="stable")
        if lab.empty:
            result.notes.append(f"no {split} labels in labels.parquet")
            continue
        offsets, group_qid = offsets_from_qid(
            lab["qid"].to_numpy(), path=run.path / "labels.parquet"
        )
        y = lab["label"].to_numpy(dtype=np.float64)
        rows = lab["row"].to_numpy()
        for model, seed in sorted(trained, key=lambda t: (t[0], str(t[1]))):
            library = library_of(model)
            sc = scores[(scores["split"] == split) & (scores["model"] == model) & (scores["seed"] == seed)]
            sc = sc.drop_duplicates("row", keep="last").set_index("row")["score"]
            if len(sc) != len(rows) or not np.isin(rows, sc.index.to_numpy()).all():
                result.errors.append(
                    f"{model} seed {seed} {split}: {len(sc)} scores for {len(rows)} labelled rows"
                )
                continue
            s = sc.reindex(rows).to_numpy(dtype=np.float64)
            logged, it = (None, None)
            if split == "vali":
                it_chosen = chosen.get((model, str(seed)))
                logged, it = _logged_value(log, model, str(seed), split, metric, it_chosen)
                if logged is None and len(log):
                    result.notes.append(
                        f"{model} seed {seed}: no {metric} in evallog.csv at iteration {it}"
                    )
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    out = crosscheck_arrays(
                        library, y, s, offsets,
                        metric=metric,
                        default_profile=dflt_name,
                        qid=group_qid,
                        logged=logged,
                        logged_iteration=it,
                        recompute=recompute,
                        model=model,
                        seed=_seed_value(seed),
                        split=split,
                        evaluate=evaluate,
                        builtin=builtin,
                    )
            except ImportError:
                raise
            except Exception as exc:  # a library or evaluator refusing the data: an error, kept
                result.errors.append(f"{model} seed {seed} {split}: {type(exc).__name__}: {exc}")
                continue
            result.checks.extend(out.checks)
            for chk in out.checks:
                if not chk.ok:
                    result.errors.append(
                        f"{model} seed {seed} {split}: built-in {metric} ({chk.source}) "
                        f"{chk.builtin:.12f} vs reference {chk.reference:.12f} under profile "
                        f"{library}: |diff| {chk.abs_diff:.3g} > {CHECK_TOL:g}"
                    )
            rec = out.reconciliation
            result.cases.append(Case(model, library, _seed_value(seed), split, rec))
            if not rec.explained:
                extra = (
                    f"; profile fields outside the walk differ: {', '.join(rec.unexplained_fields)}"
                    if rec.unexplained_fields else ""
                )
                result.errors.append(
                    f"{model} seed {seed} {split}: gap {rec.gap:.3g} between profiles "
                    f"{rec.library_profile} and {rec.default_profile} leaves residual "
                    f"{rec.residual:.3g} (largest per query {rec.max_query_residual:.3g}) that "
                    f"no reason explains{extra}"
                )
    return result


def _seed_value(seed: Any) -> int | str:
    try:
        return int(seed)
    except (TypeError, ValueError):
        return str(seed)


def write_crosscheck(result: CrosscheckResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``<out_dir>/<dataset-slug>/crosscheck.md`` and ``crosscheck.json`` (atomically)."""
    folder = Path(out_dir) / dataset_slug(result.dataset)
    return {
        "md": write_text(folder / "crosscheck.md", result.to_markdown()),
        "json": write_text(folder / "crosscheck.json", result.to_json()),
    }


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _f(x: float | None, digits: int = 6) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}f}"


def _g(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return "0" if x == 0 else f"{x:+.3g}"


def _render_markdown(res: CrosscheckResult, *, top: int) -> str:
    out = [f"# Cross-check of built-in {res.metric}: {res.dataset}", ""]
    out.append(
        f"Run `{res.run_id}`. Each library's built-in {res.metric} (its eval log at the chosen "
        "iteration, and recomputed on the final scores) beside the reference evaluator under the "
        f"library's profile: |diff| ≤ {CHECK_TOL:g} required; above {EXACT_TOL:g} it must be "
        "explained by float32 scores. Then the gap to the default profile "
        f"`{res.default_profile}`, split into reasons by changing one profile field at a time."
    )
    out.append("")
    status = "**OK**" if res.ok else "**FAILED**"
    out.append(f"Status: {status} ({len(res.checks)} checks, {len(res.cases)} reconciliations).")
    out.append("")
    bq = res.blank_queries
    out.append(
        "Blank queries (no relevant document): "
        + ", ".join(f"{k} {'?' if v is None else v}" for k, v in bq.items())
        + "."
    )
    out.append("")
    out.append("## Built-in metric vs reference evaluator (library profile)")
    out.append("")
    out.append("| Model | Seed | Split | Source | Built-in | Reference | abs diff | Agreement |")
    out.append("|---|---:|---|---|---:|---:|---:|---|")
    for c in res.checks:
        src = c.source if c.iteration is None else f"{c.source} (iter {c.iteration})"
        out.append(
            f"| {c.model} | {c.seed} | {c.split} | {src} | {_f(c.builtin, 9)} | "
            f"{_f(c.reference, 9)} | {c.abs_diff:.2e} | {c.agreement} |"
        )
    out.append("")
    out.append(f"## Gap between the library's convention and `{res.default_profile}`, by reason")
    out.append("")
    out.append(
        "Gap = library-profile value − default-profile value; each reason column is that "
        "convention's share of the gap (they add up to the gap; the residual must be ≤ 1e-9)."
    )
    out.append("")
    head = ["Model", "Seed", "Split", "Library profile", "Default", "Gap", *REASONS, "Residual"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---", "---:", "---"] + ["---:"] * (len(head) - 3)) + "|")
    for case in res.cases:
        r = case.reconciliation
        cells = [
            case.model, str(case.seed), case.split,
            _f(r.library_value), _f(r.default_value), _g(r.gap),
            *[_g(r.reasons[k]) for k in REASONS], _g(r.residual),
        ]
        out.append("| " + " | ".join(cells) + " |")
    totals = res.reasons
    out.append(
        "| **mean over cases** | | | | | "
        + _g(
            math.fsum(c.reconciliation.gap for c in res.cases if c.reconciliation.defined)
            / max(1, sum(c.reconciliation.defined for c in res.cases))
        )
        + " | "
        + " | ".join(_g(totals[k]) for k in REASONS)
        + " | |"
    )
    out.append("")
    rq = res.reason_queries()
    out.append(
        "Queries changed by each reason (summed over models, seeds and splits): "
        + ", ".join(f"{k} {v}" for k, v in rq.items())
        + "."
    )
    out.append("")
    tq = res.top_queries(top)
    if len(tq):
        out.append(f"## Largest per-query contributions (top {len(tq)})")
        out.append("")
        out.append("| Model | Seed | Split | qid | Reason | Before | After | Share of the gap |")
        out.append("|---|---:|---|---:|---|---:|---:|---:|")
        for row in tq.itertuples(index=False):
            out.append(
                f"| {row.model} | {row.seed} | {row.split} | {row.qid} | {row.reason} | "
                f"{_f(row.before, 4) or 'excluded'} | {_f(row.after, 4) or 'excluded'} | "
                f"{row.contribution:+.3g} |"
            )
        out.append("")
    if res.errors:
        out.append("## Errors")
        out.append("")
        out.extend(f"- {e}" for e in res.errors)
        out.append("")
    if res.notes:
        out.append("## Notes")
        out.append("")
        out.extend(f"- {n}" for n in res.notes)
        out.append("")
    return "\n".join(out)
