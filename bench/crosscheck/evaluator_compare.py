"""What one query's comparison is: the tolerance, agreement, ltrbench's per-query values of a
row, and the records of a disagreement (:mod:`bench.crosscheck.evaluators` runs the check,
:mod:`bench.crosscheck.evaluator_explain` finds the reasons)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.crosscheck.evaluator_tools import QrelsDict, RunDict, subtopic_lines
from bench.metrics.profiles import Profile

#: Largest |tool - ltrbench| of an agreeing query (float32 arithmetic profiles: :func:`tolerance`).
TOL = 1e-9
FLOAT32_TOL = 1e-6


def tolerance(profile: Profile) -> float:
    """:data:`TOL`, or :data:`FLOAT32_TOL` for a profile that divides in float32."""
    return FLOAT32_TOL if profile.arithmetic_dtype == "float32" else TOL


def agree(a: float | None, b: float | None, tol: float) -> bool:
    """Equal within ``tol``, or both undefined (NaN / absent)."""
    x = math.nan if a is None else a
    y = math.nan if b is None else b
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= tol


def ltrbench_values(qrels: QrelsDict, run: RunDict, metric: str,
                    profile: Profile, *, subtopics: bool = False) -> dict[str, float]:
    """ltrbench's per-query values of ``metric`` under ``profile`` (``{}`` for an empty run);
    ``subtopics``: ``qrels`` are subtopic judgments keyed by
    :func:`~bench.crosscheck.evaluator_tools.subtopic_key`, read as a TREC subtopic file."""
    from bench.metrics.trec import evaluate_trec

    run = {q: d for q, d in run.items() if d}
    qrels = {q: d for q, d in qrels.items() if d}
    if not run or not qrels:
        return {}
    given: Any = qrels
    if subtopics:  # the judgments as a subtopic Qrels, as read_qrels(subtopics=True) gives them
        from bench.data.trec import Qrels

        q, t, d, r = zip(*subtopic_lines(qrels), strict=True)
        given = Qrels(np.asarray(q, dtype=str), np.asarray(d, dtype=str),
                      np.asarray(r, dtype=np.int64), "<subtopic qrels>",
                      np.asarray(t, dtype=np.int64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_trec(given, run, metrics=[metric], profile=profile, per_query=True)
    pq = res.per_query
    assert pq is not None
    column = [c for c in pq.columns if c != "qid"][-1]
    return {str(q): float(v) for q, v in zip(pq["qid"], pq[column], strict=True)}


@dataclass
class Reproducer:
    """The smallest input found that still shows a defect: its qrels and run, the query whose
    values differ, and both values there; ``tests``: how many evaluations the search took."""

    qrels: QrelsDict
    run: RunDict
    query: str
    tool_value: float | None
    ltrbench_value: float | None
    tests: int

    def trec_lines(self) -> tuple[list[str], list[str]]:
        """The qrels and run as TREC lines (``qid 0 docno rel``, ``qid Q0 docno rank score tag``)."""
        qrels = [f"{q} 0 {d} {r}" for q, docs in self.qrels.items() for d, r in docs.items()]
        run: list[str] = []
        for q, docs in self.run.items():
            ordered = sorted(docs.items(), key=lambda kv: -kv[1])
            run += [f"{q} Q0 {d} {i} {s!r} probe" for i, (d, s) in enumerate(ordered, 1)]
        return qrels, run


@dataclass
class Disagreement:
    """Queries of one input where a row's tool and profile differ, and why.

    ``kind``: ``"convention"`` (``fields``: the profile fields and values under which ltrbench
    gives the tool's numbers; ``profiles``: the named profiles that hold those values) or
    ``"defect"`` (``reproducer``, when the search found one; ``context``: the queries agree when
    evaluated alone)."""

    case: str
    kind: str
    queries: list[str]
    example: tuple[str, float | None, float | None]
    fields: dict[str, Any] = field(default_factory=dict)
    profiles: list[str] = field(default_factory=list)
    reproducer: Reproducer | None = None
    context: bool = False

    @property
    def reason(self) -> str:
        """The reason in words."""
        if self.kind == "convention":
            said = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
            names = [repr(p) for p in self.profiles[:3]] + (["..."] if len(self.profiles) > 3 else [])
            held = f" (as profile {', '.join(names)})" if names else ""
            return f"convention: {said}{held}"
        if self.context:
            return ("defect of the tool: the query agrees when evaluated alone; its value depends "
                    "on the other queries of the input")
        return "defect of the tool: no convention of ltrbench gives its value"


def compare(tool: dict[str, float | None], ours: dict[str, float],
            tol: float) -> tuple[list[str], list[str], list[str]]:
    """The queries (of either side) that agree, disagree, and that the tool refused (``None``)."""
    same, differ, refused = [], [], []
    for q in sorted(set(tool) | set(ours)):
        if q in tool and tool[q] is None:
            refused.append(q)
        elif agree(tool.get(q), ours.get(q), tol):
            same.append(q)
        else:
            differ.append(q)
    return same, differ, refused
