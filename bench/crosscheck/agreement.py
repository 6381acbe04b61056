"""Agreement: a library's built-in metric beside the reference evaluator under that library's profile.

The library's own ``ndcg@k`` (read from its eval log at the chosen iteration, and recomputed on the
final scores by its built-in metric provider, :meth:`bench.runners.libraries.Library.provider`,
resolved once by the caller and passed down) beside the reference evaluator
:func:`bench.metrics.evaluate` under the library's profile. The absolute difference must be ≤
:data:`CHECK_TOL` (1e-6); a difference above :data:`EXACT_TOL` (1e-9) is labelled ``float32`` when
re-evaluating with the scores rounded to float32 (or, for a float32 profile, kept in float64)
brings the reference within 1e-9 of the built-in value, ``rounding`` when the built-in value is
the reference rounded to the decimals it shows, and a ``mismatch`` (an error) otherwise, as above
1e-6: the libraries log full doubles, so an unexplained gap below 1e-6 is another ranking's value
(one query of thousands ranked otherwise). The library's profile follows the metric's XGBoost
``-`` suffix and the gain the model was trained with (:func:`builtin_profile`). Then :func:`bench.metrics.reconcile.reconcile` explains the gap
between the library's profile and the default one.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.jsonio import json_number
from bench.errors import ConfigError, DataError
from bench.metrics.families import PRIMARY_METRIC
from bench.metrics.profiles import DEFAULT_PROFILE, PROFILES, Profile
from bench.metrics.reconcile import (
    Evaluate,
    ProfileLike,
    Reconciliation,
    mean_defined,
    one_metric,
    per_query_values,
    per_query_weighted,
    reconcile,
    resolve_profile,
)
from bench.runners.libraries import LIBRARIES, get_library
from bench.runners.metric_provider import MetricProvider
from bench.runners.params import LABEL_GAINS

EXACT_TOL = 1e-9
CHECK_TOL = 1e-6

@dataclass
class Check:
    """One built-in value beside the reference under the library's profile.

    ``source``: ``evallog`` (the library's eval log at the chosen ``iteration``) or ``recomputed``
    (the library's provider on the final scores). ``agreement``: ``exact`` (≤ 1e-9), ``float32``
    (≤ 1e-6 and explained by float32 rounding of the scores), ``rounding`` (≤ 1e-6: a value
    logged with fewer digits that is the reference rounded to them, :func:`rounds_to`),
    ``mismatch`` (> 1e-6, or any other gap above 1e-9: an error).
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
            "builtin": json_number(self.builtin),
            "reference": json_number(self.reference),
            "abs_diff": json_number(self.abs_diff),
            "seed": self.seed,
            "source": self.source,
            "agreement": self.agreement,
            "iteration": self.iteration,
        }


def classify_agreement(
    builtin: float,
    reference: float,
    *,
    float32_reference: float | None = None,
) -> tuple[float, str]:
    """``(abs_diff, agreement)`` per the tolerances of :class:`Check`.

    ``float32_reference``: the reference recomputed with the score precision flipped (float64
    scores rounded to float32, or float32 kept as float64); when the gap is in (1e-9, 1e-6] and
    that value is within 1e-9 of the built-in one, the agreement is ``float32``. A gap in
    (1e-9, 1e-6] is ``rounding`` only when the built-in value is the reference rounded to the
    decimals it shows (:func:`rounds_to`: a value written with fewer digits); any other gap is a
    ``mismatch``, however small: the libraries' values are full doubles, and a difference below
    1e-6 is one query of thousands ranked otherwise (an eval log of another iteration).
    """
    diff = abs(float(builtin) - float(reference))
    if math.isnan(diff):
        return diff, "mismatch"
    if diff <= EXACT_TOL:
        return diff, "exact"
    if diff <= CHECK_TOL:
        if float32_reference is not None and abs(builtin - float32_reference) <= EXACT_TOL:
            return diff, "float32"
        if rounds_to(float(builtin), float(reference)):
            return diff, "rounding"
    return diff, "mismatch"


def rounds_to(shown: float, value: float) -> bool:
    """Whether ``shown`` (a float as written, its shortest decimal form) is ``value`` rounded to
    the decimals ``shown`` has: ``0.812346`` rounds ``0.8123456789``, ``0.812347`` does not, and
    a full-precision double (16-17 digits) rounds nothing but itself."""
    if not (math.isfinite(shown) and math.isfinite(value)):
        return False
    written = decimal.Decimal(repr(shown)).as_tuple()
    exponent, digits = written.exponent, written.digits
    if not isinstance(exponent, int) or exponent >= 0:
        return False
    if len(digits) >= 15:  # as many digits as a double holds: not a rounded value
        return False
    half_unit = 0.5 * 10.0 ** exponent
    return abs(shown - value) <= half_unit * (1 + 1e-9)


def builtin_profile(base: Profile, metric: str, label_gain: str = "exp2") -> tuple[Profile, str]:
    """The profile that reproduces a library's built-in ``metric`` and the reference's name of
    that metric, from the library's ``base`` profile: XGBoost's ``-`` suffix (``ndcg@10-``,
    ``map-``: a query without relevant documents scores 0) is the profile ``<base>-`` with the
    bare name; ``label_gain = "linear"`` (the run's shared parameter: LightGBM's ``label_gain``
    table 0, 1, 2, ..., XGBoost's ``ndcg_exp_gain=false``, CatBoost's ``type=Base``) is the
    profile with gain l, named ``<profile>+label_gain=linear``. A ConfigError for an unknown
    ``label_gain`` or a suffix no profile models."""
    if label_gain not in LABEL_GAINS:
        raise ConfigError(f"unknown label_gain {label_gain!r}; valid: {', '.join(LABEL_GAINS)}")
    profile, name = base, metric
    if isinstance(metric, str) and metric.endswith("-") and not metric.endswith("--"):
        minus = PROFILES.get(f"{base.name}-")
        if minus is None:
            raise ConfigError(f"metric {metric!r}: the '-' suffix (a query without relevant "
                              f"documents scores 0) is XGBoost's; profile {base.name} has no "
                              f"'{base.name}-' variant")
        profile, name = minus, metric[:-1]
    if label_gain == "linear" and profile.gain == "exp2":
        profile = dataclasses.replace(profile, name=f"{profile.name}+label_gain=linear",
                                      gain="linear")
    return profile, name


def _reference(
    labels: NDArray[Any],
    scores: NDArray[np.float64],
    offsets: NDArray[np.int64],
    *,
    metric: str,
    profile: Profile,
    evaluate: Evaluate | None,
    weights: NDArray[np.float64] | None = None,
) -> float:
    """The reference mean of ``metric`` under ``profile``: the mean of the evaluator's per-query
    values, which must equal the mean it reports (a DataError otherwise); with query
    ``weights``, the mean it reports (a library's weighted mean is its own rule)."""
    if weights is not None:
        return per_query_weighted(labels, scores, offsets, metric=metric, profile=profile,
                                  evaluate=evaluate, weights=weights)[2]
    ref_vals, ref_mean_reported = per_query_values(
        labels, scores, offsets, metric=metric, profile=profile, evaluate=evaluate
    )
    reference = mean_defined(ref_vals)
    if not math.isnan(ref_mean_reported) and abs(reference - ref_mean_reported) > EXACT_TOL:
        raise DataError(
            f"the evaluator's mean {metric} ({ref_mean_reported!r}) differs from the mean of its "
            f"per-query values ({reference!r}) under profile {profile.name}"
        )
    return reference


def _agreement(value: float, reference: float, flipped: Callable[[], float]) -> tuple[float, str]:
    """:func:`classify_agreement` of one built-in value, the flipped-precision reference
    computed only when the gap is in (1e-9, 1e-6]."""
    diff = abs(value - reference)
    f32 = flipped() if EXACT_TOL < diff <= CHECK_TOL else None
    return classify_agreement(value, reference, float32_reference=f32)


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
    metric: str = PRIMARY_METRIC,
    default_profile: ProfileLike = DEFAULT_PROFILE,
    library_profile: ProfileLike | None = None,
    qid: ArrayLike | None = None,
    logged: float | None = None,
    logged_iteration: int | None = None,
    recompute: bool = True,
    model: str = "",
    seed: int | str = 0,
    split: str = "",
    evaluate: Evaluate | None = None,
    provider: type[MetricProvider] | None = None,
    label_gain: str = "exp2",
    weights: ArrayLike | None = None,
) -> ArrayCrosscheck:
    """Cross-check one ranking (labels, scores, group offsets) of a ``library`` model.

    * ``recompute``: the library's own value of ``metric`` from ``provider`` (its built-in
      metric provider, :meth:`bench.runners.libraries.Library.provider`, as the caller resolved
      it once: :func:`bench.crosscheck.run.crosscheck_run` does so per library of the run;
      default: looked up from the record of ``library`` here), compared with the reference
      under the library's profile (``library_profile``, default the profile its record names);
    * ``logged``: a value from the library's eval log, compared the same way;
    * then :func:`reconcile` the library profile with ``default_profile``.

    ``label_gain``: the gain the model was trained and logged with (``exp2`` or ``linear``, the
    run's shared parameter); the library's profile and its recomputed value follow it, and an
    XGBoost ``-`` suffix selects the profile of its blank rule (:func:`builtin_profile`).
    ``weights``: one weight per query, given to the library (per row where it takes them so),
    the reference and the reconciliation (its ``weights`` step).
    """
    y = np.asarray(labels)
    s = np.asarray(scores, dtype=np.float64)
    off = np.asarray(offsets, dtype=np.int64)
    if library_profile is None:  # the profile its record names (a profile name otherwise)
        library_profile = LIBRARIES[library].profile if library in LIBRARIES else library
    lib_prof, ref_metric = builtin_profile(resolve_profile(library_profile), metric, label_gain)
    one_metric(ref_metric, evaluate)  # ltrbench:ndcg@10 was the reference of LightGBM's value
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    reference = _reference(y, s, off, metric=ref_metric, profile=lib_prof, evaluate=evaluate,
                           weights=w)
    candidates: list[tuple[str, float, int | None]] = []
    if logged is not None and not (isinstance(logged, float) and math.isnan(logged)):
        candidates.append(("evallog", float(logged), logged_iteration))
    if recompute:
        cls = get_library(library).provider() if provider is None else provider
        given = None if w is None else np.repeat(w, np.diff(off)) if cls.row_weights else w
        value = float(cls(y, s, off, [metric], label_gain=label_gain, weights=given)()[metric])
        candidates.append(("recomputed", value, None))
    other = "float64" if lib_prof.score_dtype == "float32" else "float32"
    flipped = functools.cache(lambda: _reference(  # the score precision flipped, on first need
        y, s, off, metric=ref_metric, evaluate=evaluate, weights=w,
        profile=dataclasses.replace(lib_prof, score_dtype=other)))
    checks: list[Check] = []
    for source, value, iteration in candidates:
        diff, agreement = _agreement(value, reference, flipped)
        checks.append(Check(model=model, library=library, seed=seed, split=split, metric=metric,
                            source=source, builtin=value, reference=reference,
                            abs_diff=diff, agreement=agreement, iteration=iteration))
    rec = reconcile(
        y, s, off,
        library_profile=lib_prof,
        default_profile=default_profile,
        metric=ref_metric,
        qid=qid,
        evaluate=evaluate,
        weights=w,
    )
    return ArrayCrosscheck(checks=checks, reconciliation=rec, reference=reference)
