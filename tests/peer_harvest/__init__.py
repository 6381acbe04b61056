"""A harvest of peer projects' metric test cases, re-expressed as ltrbench inputs (issue 23).

Each module holds one project's cases (``CASES``): the inputs of one assertion of that project's
test suite (its labels and scores per query, or its qrels and run), the metric and the named
profile that claim to reproduce it in ltrbench, and the number the peer's test expects (a mean or
one value per query), with the repository, file and test it comes from. The numbers are the
peers' facts, cited; no peer code is copied. ``tests/test_metrics_peer_harvest.py`` replays every
case through :func:`bench.metrics.evaluate` / :func:`bench.metrics.evaluate_trec` under its
profile, with no override, and counts agree / disagree / inexpressible.

A case that ltrbench cannot express says why in ``inexpressible`` (which convention or input is
missing); a case about something that is not a ranking metric of labelled or judged documents
(coverage, log loss, ...) says so in ``out_of_scope``. Both are counted, never replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

Lists = tuple[tuple[float, ...], ...]
Dicts = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Case:
    """One peer assertion re-expressed.

    Attributes:
        project: the peer project (``ranx``, ``torchmetrics``, ...).
        repo, path, test: where the expected number is asserted (GitHub ``owner/name``, file,
            test function).
        metric: the ltrbench metric name (``ndcg@3``, ``mrr@10``, ``auc``, ...).
        profile: the named profile that claims the peer's convention.
        labels, scores: per query (one tuple per list), for :func:`bench.metrics.evaluate`.
        qrels, run: ``{qid: {docno: value}}``, for :func:`bench.metrics.evaluate_trec`.
        weights: one weight per query where the peer's test weighs queries (an input).
        mean: the peer's expected mean; ``per_query``: its expected value per query (qid order).
        tol: the absolute tolerance of the peer's own assertion (or float32's where its
            arithmetic is in float32).
        scale: the peer number is ``scale`` times ltrbench's (ranx ``hits@k`` = ``k * P@k``).
        inexpressible: why ltrbench cannot express the case (then it is not replayed).
        out_of_scope: why the case is not a ranking metric (then it is not replayed).
        note: how the peer's input was re-expressed, where it was not one-to-one.
    """

    project: str
    repo: str
    path: str
    test: str
    metric: str
    profile: str
    labels: Lists | None = None
    scores: Lists | None = None
    qrels: Dicts | None = None
    run: Dicts | None = None
    weights: tuple[float, ...] | None = None
    mean: float | None = None
    per_query: tuple[float, ...] | None = None
    tol: float = 1e-6
    scale: float = 1.0
    inexpressible: str | None = None
    out_of_scope: str | None = None
    note: str = ""
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``project:test:metric`` (a pytest id)."""
        return f"{self.project}:{self.test}:{self.metric}"


def lists(*rows: Sequence[float]) -> Lists:
    """Per-query values as nested tuples."""
    return tuple(tuple(float(v) for v in row) for row in rows)


def ranked(items: Sequence[str | int]) -> dict[str, float]:
    """A run's line for a ranked list of items: the first item the highest score."""
    n = len(items)
    return {str(item): float(n - i) for i, item in enumerate(items)}


def relevant(items: Sequence[str | int], level: float = 1.0) -> dict[str, float]:
    """A qrels line judging ``items`` relevant at ``level``."""
    return {str(item): float(level) for item in items}


def descending(n: int) -> tuple[float, ...]:
    """Scores ``n - 1, ..., 0``: rows in ranked order."""
    return tuple(float(n - 1 - i) for i in range(n))
