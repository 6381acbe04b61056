"""Which metric definition each release of LightGBM / XGBoost used (``crosscheck --versions``).

For each requested release, the library's built-in ``ndcg@k`` / ``map@k`` (k = 1, 3, 5, 10;
XGBoost also the bare ``ndcg`` / ``map`` and the ``-`` variants; ``ndcg@10`` again with linear
gain) are read on the fixed cases of :mod:`bench.crosscheck.version_cases` by a probe running in
an isolated environment (:mod:`bench.crosscheck.version_env`). The same cases are evaluated
under every profile of :data:`bench.metrics.profiles.PROFILES` and under each one's variants
(gain ``l`` instead of ``2^l - 1``; query weights ignored). A profile *reproduces* a release's
metric when every per-query value (each query evaluated alone by the library) and every case
mean agree to 1e-9, or both sides refuse the case. Where no candidate does, the report gives the
closest one and its first difference.
"""

from __future__ import annotations

import datetime as _dt
import math
import platform
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.crosscheck.version_cases import Case, build_cases, cases_arrays
from bench.crosscheck.version_env import (
    INSTALLED,
    EnvironmentFailure,
    Progress,
    default_cache_dir,
    probe_python,
    run_probe,
)
from bench.crosscheck.version_probe import LINEAR_TAG
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate
from bench.metrics.profiles import PROFILES, Profile
from bench.runners.libraries import gbdt_libraries

#: Agreement tolerance between a library's number and a profile's.
TOL = 1e-9
_KS = (1, 3, 5, 10)
#: What the probe reads of each library it knows (``version_probe._EVALUATORS``): (metrics,
#: metrics read again with linear gain); LightGBM has no metric without @k.
_METRICS: dict[str, tuple[list[str], list[str]]] = {
    "lightgbm": ([f"ndcg@{k}" for k in _KS] + [f"map@{k}" for k in _KS], ["ndcg@10"]),
    "xgboost": ([f"ndcg@{k}" for k in _KS] + ["ndcg", "ndcg@10-", "ndcg-"]
                + [f"map@{k}" for k in _KS] + ["map", "map@10-", "map-"], ["ndcg@10", "ndcg"]),
}
#: Libraries the probe can read: the declared GBDT libraries (:mod:`bench.runners.libraries`)
#: that :data:`_METRICS` describes, in declaration order.
LIBRARIES: tuple[str, ...] = tuple(name for name in gbdt_libraries() if name in _METRICS)
_VERSION = re.compile(r"^[0-9][0-9A-Za-z.+!-]*$")

Value = float | str  # a number, or "error: ..." when the tool refuses the input


@dataclass(frozen=True)
class Candidate:
    """A profile as the comparison uses it: a named profile, maybe with linear gain, with or
    without the case's query weights."""

    label: str
    profile_name: str
    linear_gain: bool
    weighted: bool
    profile: Profile

    def describe(self) -> dict[str, object]:
        """How to rebuild it: the profile name, the ``replace()`` applied, the weights."""
        return {"profile": self.profile_name,
                "replace": {"gain": "linear"} if self.linear_gain else {},
                "weights": "used" if self.weighted else "ignored"}


@dataclass
class MetricRow:
    """One release x metric: the candidates that reproduce it on every case, or the closest."""

    metric: str
    matches: list[str]
    closest: str | None = None
    first_difference: dict[str, Any] | None = None
    means: dict[str, Value] = field(default_factory=dict)


@dataclass
class VersionReport:
    """One release: its environment, and one :class:`MetricRow` per metric (empty on failure)."""

    library: str
    requested: str
    version: str | None = None
    numpy: str | None = None
    error: str | None = None
    rows: list[MetricRow] = field(default_factory=list)


@dataclass
class VersionsResult:
    """What :func:`run_versions` returns; :meth:`to_dict` is ``versions.json``."""

    date: str
    python: str
    platform: str
    cases: list[Case]
    candidates: list[Candidate]
    reports: list[VersionReport]

    @property
    def ok(self) -> bool:
        """Every release ran and every metric has a profile that reproduces it."""
        return all(r.error is None and all(row.matches for row in r.rows) for r in self.reports)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (``versions.json``)."""
        return {
            "date": self.date, "python": self.python, "platform": self.platform,
            "tolerance": TOL,
            "cases": [c.summary() for c in self.cases],
            "candidates": {c.label: c.describe() for c in self.candidates},
            "results": [{
                "library": r.library, "requested": r.requested, "version": r.version,
                "numpy": r.numpy, "error": r.error,
                "metrics": [{"metric": row.metric, "matches": row.matches,
                             "closest": row.closest, "first_difference": row.first_difference,
                             "means": row.means} for row in r.rows],
            } for r in self.reports],
        }


def parse_version_specs(tokens: Sequence[str], *, name: str = "--versions"
                        ) -> list[tuple[str, list[str]]]:
    """``["lightgbm==3.3.5,4.7.0", "xgboost==installed"]`` -> ``[(library, [versions])]``.

    ``installed`` is the release in the current interpreter (no environment is made). Raises
    :class:`ConfigError` on a token without ``==``, an unknown library, an empty or malformed
    version, or a library named twice; the message names the tokens as ``name`` (the caller's
    option or argument: ``crosscheck-versions`` takes them as positional ``LIBRARY==V1,V2``).
    """
    if not tokens:
        raise ConfigError(f"{name} needs at least one LIBRARY==V1,V2,... token")
    out: list[tuple[str, list[str]]] = []
    for token in tokens:
        library, sep, rest = token.partition("==")
        library = library.strip().lower()
        if not sep:
            raise ConfigError(f"{name} {token!r}: expected LIBRARY==V1,V2,... "
                              f"(e.g. xgboost==1.7.6,2.1.4 or lightgbm=={INSTALLED})")
        if library not in LIBRARIES:
            raise ConfigError(f"{name} {token!r}: unknown library {library!r}; "
                              f"valid: {', '.join(LIBRARIES)} (the libraries the probe reads)")
        if any(lib == library for lib, _ in out):
            raise ConfigError(f"{name}: {library} named twice; list its versions in one token")
        versions = [v.strip() for v in rest.split(",")]
        bad = [v for v in versions if v != INSTALLED and not _VERSION.match(v)]
        if not rest.strip() or bad:
            raise ConfigError(f"{name} {token!r}: bad version {(bad or [''])[0]!r}; expected "
                              f"a release such as 1.7.6, or {INSTALLED!r}")
        seen: dict[str, str] = {}  # 1.7.6 and 01.7.6 are one release to pip: installed once
        for v in versions:
            seen.setdefault(re.sub(r"(?<![0-9])0+(?=[0-9])", "", v), v)
        out.append((library, list(seen.values())))
    return out


def candidates() -> list[Candidate]:
    """Every profile of the registry, with linear gain (profiles with gain ``2^l - 1``), each
    with and without the query weights."""
    out: list[Candidate] = []
    for name, prof in PROFILES.items():
        bases = [(name, False, prof)]
        if prof.gain == "exp2":
            bases.append((f"{name} gain=linear", True, replace(prof, gain="linear")))
        for label, linear, p in bases:
            out.append(Candidate(label, name, linear, True, p))
            out.append(Candidate(f"{label} weights-ignored", name, linear, False, p))
    return out


def _ltr_metric(library_metric: str) -> str:
    return library_metric.replace(LINEAR_TAG, "").rstrip("-")


def _error(exc: Exception) -> str:
    return f"error: {exc}"


def _evaluate_candidate(case: Case, cand: Candidate,
                        metrics: list[str]) -> dict[str, tuple[Value, list[Value]]]:
    """``{ltrbench metric: (case mean, per-query values)}``; a refusal fills both with the error."""
    out: dict[str, tuple[Value, list[Value]]] = {}
    weights = case.weights if cand.weighted else None
    families: dict[str, list[str]] = {}
    for m in metrics:
        families.setdefault(m.split("@")[0], []).append(m)
    for group in families.values():
        for names in ([group] if len(group) > 1 else []) + [[m] for m in group]:
            if all(m in out for m in names):
                continue
            try:
                res = evaluate(case.labels, case.scores, group=case.group, metrics=names,
                               profile=cand.profile, per_query=True, weights=weights,
                               backend="numpy")
            except (DataError, ConfigError) as exc:
                if len(names) == 1:
                    err = _error(exc)
                    out[names[0]] = (err, [err] * int(case.group.shape[0]))
                continue
            assert res.per_query is not None
            for m in names:
                out[m] = (float(res.metrics[m]), [float(v) for v in res.per_query[m]])
    return out


def _differs(a: Value, b: Value) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) != isinstance(b, str)
    if math.isnan(a) or math.isnan(b):
        return not (math.isnan(a) and math.isnan(b))
    return abs(a - b) > TOL


def _difference(case: str, query: int | None, lib: Value, prof: Value) -> dict[str, Any]:
    def plain(v: Value) -> float | str | None:  # NaN (a query left out) is null in JSON
        return None if isinstance(v, float) and math.isnan(v) else v

    lib_v, prof_v = plain(lib), plain(prof)
    both = isinstance(lib_v, float) and isinstance(prof_v, float)
    delta = lib_v - prof_v if both else None  # type: ignore[operator]
    return {"case": case, "query": query, "library": lib_v, "profile": prof_v, "difference": delta}


def _compare(lib_cases: dict[str, Any], metric: str, cand_values: dict[str, Any],
             cases: list[Case]) -> tuple[int, int, dict[str, Any] | None]:
    """(cases that agree, queries that differ, the first difference) of one candidate."""
    agree, n_diff, first = 0, 0, None
    for case in cases:
        lib = lib_cases[case.name]
        mean, per_query = cand_values[case.name][_ltr_metric(metric)]
        diffs = [_difference(case.name, q + 1, lv, pv)
                 for q, (lv, pv) in enumerate(zip(lib["per_query"][metric], per_query, strict=True))
                 if _differs(lv, pv)]
        if _differs(lib["mean"][metric], mean):
            diffs.append(_difference(case.name, None, lib["mean"][metric], mean))
        n_diff += len(diffs)
        agree += not diffs
        if diffs and first is None:
            first = diffs[0]
    return agree, n_diff, first


def _rows(probe: dict[str, Any], metrics: list[str], cases: list[Case], cands: list[Candidate],
          values: dict[str, dict[str, Any]]) -> list[MetricRow]:
    rows = []
    for metric in metrics:
        scored = []
        for order, cand in enumerate(cands):
            agree, n_diff, first = _compare(probe["cases"], metric, values[cand.label], cases)
            scored.append((-agree, n_diff, order, cand.label, first))
        row = MetricRow(metric, [s[3] for s in scored if s[4] is None],
                        means={c.name: probe["cases"][c.name]["mean"][metric] for c in cases})
        if not row.matches:
            best = min(scored)
            row.closest, row.first_difference = best[3], best[4]
        rows.append(row)
    return rows


def run_versions(specs: Sequence[tuple[str, Sequence[str]]], *, cache_dir: Path | None = None,
                 progress: Progress | None = None) -> VersionsResult:
    """Probe every release of ``specs`` (:func:`parse_version_specs`) and match its metrics
    against every profile (see the module docstring).

    A release whose environment or probe fails gets a report with ``error`` (the pip or probe
    output's last lines); the other releases still run. Reference: the libraries' metric code
    cited in :mod:`bench.metrics.profiles`.
    """
    say = progress or (lambda _msg: None)
    cases = build_cases()
    arrays = cases_arrays(cases)
    cands = candidates()
    ltr_metrics = sorted({_ltr_metric(m) for lib, _ in specs
                          for ms in _METRICS[lib] for m in ms})
    values = {c.label: {case.name: _evaluate_candidate(case, c, ltr_metrics) for case in cases}
              for c in cands}
    reports: list[VersionReport] = []
    for library, versions in specs:
        metrics, linear = _METRICS[library]
        for version in versions:
            report = VersionReport(library, version)
            reports.append(report)
            try:
                python = probe_python(library, version, cache_dir or default_cache_dir(), say)
                say(f"{library}=={version}: probing")
                probe = run_probe(python, library, version, metrics, linear, arrays)
            except EnvironmentFailure as exc:
                report.error = str(exc)
                say(f"{library}=={version}: FAILED\n{exc}")
                continue
            report.version, report.numpy = probe["version"], probe["numpy"]
            all_metrics = metrics + [m + LINEAR_TAG for m in linear]
            report.rows = _rows(probe, all_metrics, cases, cands, values)
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d")
    return VersionsResult(now, platform.python_version(), f"{sys.platform} {platform.machine()}",
                          cases, cands, reports)
