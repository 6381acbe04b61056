"""Metric names: parse ``"ndcg@10"``, ``"map"``, ``"ndcg@1,3,5,10"`` into :class:`MetricSpec`.

Grammar (case-insensitive; items separated by commas or white space)::

    item   := family [ "@" k ] | k          # a bare k continues the previous family
    family := dcg | ndcg | map | mrr | p | recall | err | hits | rmse | mae  (or an alias)

``"ndcg@1,3,5,10,map@10"`` is ``ndcg@1, ndcg@3, ndcg@5, ndcg@10, map@10``. A name without
``@k`` is over the whole list, unless the profile has a ``default_k`` (XGBoost truncates a bare
``ndcg``/``map``/``pre`` at 32: ``rank_metric.cc:219-228``, ``ranking_utils.h:66-127``); the
metric keeps the name it was asked by. ``rmse`` and ``mae`` are pointwise and take no ``@k``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bench.errors import ConfigError
from bench.metrics.families import ALIASES, FAMILIES

#: Ranking metric families (canonical names) and what they compute.
RANKING_FAMILIES: dict[str, str] = {f.name: f.meaning for f in FAMILIES.values() if f.ranking}
#: Pointwise metrics (no ranking, no ``@k``).
POINTWISE_FAMILIES: dict[str, str] = {f.name: f.meaning for f in FAMILIES.values() if f.pointwise}
#: Families whose value on a query without relevant documents is 0/0, so that the profile's
#: ``empty`` policy decides it. The others have a natural value there (0).
NORMALISED_FAMILIES: frozenset[str] = frozenset(f.name for f in FAMILIES.values() if f.normalised)
_ALIASES = ALIASES
_ITEM = re.compile(r"^(?P<family>[a-z_]+)(?:@(?P<k>[0-9]+))?$")
_CUTOFF = re.compile(r"[0-9]+")
#: Largest cutoff ``@k`` accepted (int32, what the kernels' rank arithmetic is safe with).
MAX_CUTOFF = 2**31 - 1


@dataclass(frozen=True)
class MetricSpec:
    """One metric: ``family`` (canonical), cutoff ``k`` (``None`` = whole list) and its ``name``.

    ``name`` is the canonical spelling (``"p@10"`` for ``"precision@10"``) and is the key of
    :attr:`EvaluationResult.metrics`.
    """

    family: str
    k: int | None
    name: str

    @property
    def pointwise(self) -> bool:
        """True for ``rmse`` / ``mae``."""
        return self.family in POINTWISE_FAMILIES

    @property
    def normalised(self) -> bool:
        """True when the value on a query without relevant documents is 0/0 (see profiles)."""
        return self.family in NORMALISED_FAMILIES


def valid_metric_names() -> str:
    """Human-readable list of accepted metric names, for error messages and ``--help``."""
    ranked = ", ".join(f"{f}@k" for f in RANKING_FAMILIES)
    bare = ", ".join(RANKING_FAMILIES)
    aliases = ", ".join(f"{a}={c}" for a, c in sorted(_ALIASES.items()))
    return (
        f"{ranked} (k a positive integer; without @k: {bare} over the whole list), "
        f"{', '.join(POINTWISE_FAMILIES)}; aliases {aliases}; 'ndcg@1,3,5,10' expands"
    )


def parse_metrics(metrics: str | Iterable[str]) -> list[MetricSpec]:
    """Parse metric names into specs, in the given order, without duplicates.

    ``metrics`` is one string (``"ndcg@1,3,5,10 map@10"``) or an iterable of such strings.
    Raises :class:`ConfigError` listing the valid names on anything it does not know.
    """
    items = [metrics] if isinstance(metrics, str) else list(metrics)
    tokens: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ConfigError(f"metric names must be strings, got {item!r}")
        tokens.extend(t for t in re.split(r"[\s,]+", item.strip().lower()) if t)
    if not tokens:
        raise ConfigError(f"no metric names given; valid names: {valid_metric_names()}")
    out: list[MetricSpec] = []
    seen: set[str] = set()
    previous: str | None = None
    for token in tokens:
        if _CUTOFF.fullmatch(token):
            if previous is None or previous in POINTWISE_FAMILIES:
                raise ConfigError(
                    f"cutoff {token!r} does not follow a ranking metric; "
                    f"valid names: {valid_metric_names()}"
                )
            spec = _spec(previous, token)
        else:
            m = _ITEM.match(token)
            family = _ALIASES.get(m.group("family"), m.group("family")) if m else None
            if m is None or (family not in RANKING_FAMILIES and family not in POINTWISE_FAMILIES):
                raise ConfigError(
                    f"unknown metric {token!r}; valid names: {valid_metric_names()}"
                )
            assert family is not None
            if family in POINTWISE_FAMILIES and m.group("k") is not None:
                raise ConfigError(f"{family} is pointwise and takes no @k (got {token!r})")
            spec = _spec(family, m.group("k"))
            previous = family
        if spec.name not in seen:
            seen.add(spec.name)
            out.append(spec)
    return out


def _spec(family: str, k: str | None) -> MetricSpec:
    if k is None:
        return MetricSpec(family, None, family)
    kk = int(k)
    if not 1 <= kk <= MAX_CUTOFF:
        raise ConfigError(f"cutoff must be an integer in 1..{MAX_CUTOFF}, got {family}@{k}")
    return MetricSpec(family, kk, f"{family}@{kk}")
