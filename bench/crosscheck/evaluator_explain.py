"""Why a tool and the profile that claims to reproduce it disagree on some queries.

1. **A convention.** The claimed profile is changed one convention at a time: every field of
   :class:`~bench.metrics.profile.Profile` set to each value some named profile holds (and the
   other values its validation accepts, :data:`FIELD_VALUES`), and each step of
   :data:`bench.metrics.reconcile.STEPS` (its fields together) set to a named profile's values.
   A variant *explains* the disagreement when it gives the tool's number on every disagreeing
   query and changes no query that agreed (a partial match is no explanation: a defect's 0 can
   equal a variant's value by chance). A query with tied scores whose tool value lies between
   ltrbench's ``ties="pessimistic"`` and ``"optimistic"`` values is explained by the tool's own
   order among equal scores (ranx sorts with a numba quicksort, scikit-learn ``ignore_ties``
   with NumPy's unstable argsort).
2. **A defect.** First, a query that agrees when the tool evaluates it alone is a defect whatever
   else holds: a query's value must not depend on the other queries. What no convention explains
   is a defect too. For the disagreeing query
   with the fewest documents, delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
   Failure-Inducing Input", IEEE TSE 28(2), 2002: ``ddmin``) shrinks the input while the query
   still disagrees: first the other queries (a defect can need another query, as ranx 0.3.21's
   ``bpref`` does: a query without a relevant document makes its parallel loop return 0 for
   others), then the documents of each query left.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bench.crosscheck.evaluator_compare import (
    Disagreement,
    Reproducer,
    agree,
    compare,
    ltrbench_values,
)
from bench.crosscheck.evaluator_table import EvaluatorInput, EvaluatorRow
from bench.crosscheck.evaluator_tools import QrelsDict, RunDict, measure_label
from bench.crosscheck.evaluator_worker import InProcess, ToolFailure, Worker
from bench.errors import LtrbenchError
from bench.metrics.profile import Profile
from bench.metrics.profiles import PROFILES, get_profile
from bench.metrics.reconcile import STEPS

#: Evaluations (tool and ltrbench) one reproducer search may spend.
BUDGET = 400
#: Values a field may take beyond those the named profiles hold.
FIELD_VALUES: dict[str, tuple[Any, ...]] = {
    "ties": ("stable", "average", "pessimistic", "optimistic", "docno_desc", "docno_asc",
             "row_desc"),
    "empty": (0.0, 1.0, None),
    "idcg_basis": ("list", "qrels"),
    "k_beyond_n": ("clip", "zero"),
    "map_denominator": ("min_r_k", "r", "hits_k"),
    "precision_denominator": ("k", "min_k_n"),
    "score_dtype": ("float64", "float32"),
    "arithmetic_dtype": ("float64", "float32"),
    "missing": ("drop", "zero"),
    "unjudged_gain": ("label0", "zero"),
    "relevance_threshold": (1.0, 2.0),
}
_SKIP = {"name", "description", "tie_seed", "max_label", "integer_labels",
         "labels_beyond_gain_table", "binary_labels_for_binary_metrics",
         "binary_label_families", "query_weights", "unweighted_families",
         "blank_ndcg_weight", "clamp_ndcg_mean"}

Runner = Worker | InProcess
T = TypeVar("T")


def _holders(changes: dict[str, Any]) -> list[str]:
    """The named profiles that hold every value of ``changes``."""
    return [n for n, p in PROFILES.items()
            if all(getattr(p, f) == v for f, v in changes.items())]


def variants(profile: Profile) -> list[tuple[dict[str, Any], Profile]]:
    """Every variant of ``profile`` the search tries: ``(changed fields, profile)``."""
    seen: set[tuple[tuple[str, str], ...]] = set()
    out: list[tuple[dict[str, Any], Profile]] = []

    def add(changes: dict[str, Any]) -> None:
        key = tuple(sorted((f, repr(v)) for f, v in changes.items()))
        if not changes or key in seen:
            return
        seen.add(key)
        label = ",".join(f"{f}={v}" for f, v in changes.items())
        with contextlib.suppress(LtrbenchError):  # a combination the validation refuses
            out.append((changes, dataclasses.replace(profile, name=f"{profile.name}+{label}",
                                                     **changes)))

    names = [f.name for f in dataclasses.fields(Profile) if f.name not in _SKIP]
    for f in names:
        values = list(FIELD_VALUES.get(f, ())) + [getattr(p, f) for p in PROFILES.values()]
        for v in values:
            if v != getattr(profile, f):
                add({f: v})
    for _, group in STEPS:
        for other in PROFILES.values():
            add({f: getattr(other, f) for f in group
                 if f not in _SKIP and getattr(other, f) != getattr(profile, f)})
    return out


def _explaining(inp: EvaluatorInput, row: EvaluatorRow, tool: dict[str, float | None],
                same: list[str], left: list[str], tried: list[tuple[dict[str, Any], Profile]],
                tol: float) -> dict[str, Any] | None:
    """The first variant that gives the tool's value on every query of ``left`` and changes none
    of ``same`` (a partial explanation is not one: a defect's 0 can match a variant by chance)."""
    for changes, prof in tried:
        try:
            ours = ltrbench_values(inp.qrels, inp.run, row.metric, prof)
        except LtrbenchError:
            continue
        if all(agree(tool.get(q), ours.get(q), tol) for q in [*left, *same]):
            return changes
    return None


def _alone(inp: EvaluatorInput, q: str) -> tuple[QrelsDict, RunDict]:
    return _sub(inp, {q: list(dict.fromkeys([*inp.qrels.get(q, {}), *inp.run.get(q, {})]))})


def _needs_context(row: EvaluatorRow, inp: EvaluatorInput, q: str, runner: Runner,
                   tol: float) -> bool:
    """Whether ``q`` agrees when the tool and ltrbench evaluate it alone: a query's value must
    not depend on the other queries, so a disagreement that needs them is the tool's defect."""
    qrels, run = _alone(inp, q)
    if not qrels or not run:
        return False
    try:
        tool = runner.compute(qrels, run, [(row.provider, row.measure)])
        ours = ltrbench_values(qrels, run, row.metric, get_profile(row.profile))
        mine = tool[measure_label(row.provider, row.measure)]
    except (ToolFailure, LtrbenchError, KeyError, TypeError):
        return False
    return q in mine and mine[q] is not None and agree(mine[q], ours.get(q), tol)


def _tie_order(inp: EvaluatorInput, row: EvaluatorRow, tool: dict[str, float | None],
               left: list[str], tol: float) -> list[str]:
    """The queries of ``left`` with tied scores whose tool value some order of the tied
    documents gives: between ltrbench's ``ties='pessimistic'`` and ``'optimistic'`` values."""
    prof = get_profile(row.profile)
    try:
        low = ltrbench_values(inp.qrels, inp.run, row.metric,
                              dataclasses.replace(prof, ties="pessimistic"))
        high = ltrbench_values(inp.qrels, inp.run, row.metric,
                               dataclasses.replace(prof, ties="optimistic"))
    except LtrbenchError:
        return []
    out = []
    for q in left:
        scores = list(inp.run.get(q, {}).values())
        v, lo, hi = tool.get(q), low.get(q), high.get(q)
        if (len(set(scores)) < len(scores) and v is not None and lo is not None and hi is not None
                and min(lo, hi) - tol <= v <= max(lo, hi) + tol
                and not agree(lo, hi, tol)):
            out.append(q)
    return out


def explain(row: EvaluatorRow, inp: EvaluatorInput, tool: dict[str, float | None],
            ours: dict[str, float], same: list[str], differ: list[str], runner: Runner,
            tol: float) -> list[Disagreement]:
    """The disagreements of one row on one input, each with its reason (module docstring)."""
    out: list[Disagreement] = []

    def said(kind: str, queries: list[str], **extra: Any) -> None:
        if queries:
            q = queries[0]
            out.append(Disagreement(inp.name, kind, queries, (q, tool.get(q), ours.get(q)),
                                    **extra))

    context = [q for q in differ if _needs_context(row, inp, q, runner, tol)]
    left = [q for q in differ if q not in context]
    tried = variants(get_profile(row.profile))
    changes = _explaining(inp, row, tool, same, left, tried, tol) if left else None
    if changes is not None:
        said("convention", left, fields=changes, profiles=_holders(changes))
        left = []
    tied = _tie_order(inp, row, tool, left, tol)
    said("convention", tied, fields={"ties": "the tool's own order"})
    left = [q for q in left if q not in tied]
    changes = _explaining(inp, row, tool, [*same, *tied], left, tried, tol) if left else None
    if changes is not None:
        said("convention", left, fields=changes, profiles=_holders(changes))
        left = []
    for kind_queries in (context, left):
        if kind_queries:
            size = {q: len(set(inp.qrels.get(q, {})) | set(inp.run.get(q, {})))
                    for q in kind_queries}
            target = min(kind_queries, key=lambda q: (size[q], q))
            said("defect", sorted(kind_queries, key=lambda q: q != target),
                 reproducer=shrink(row, inp, target, runner, tol),
                 context=kind_queries is context)
    return out


def ddmin(items: list[T], test: Callable[[list[T]], bool]) -> list[T]:
    """Zeller's ``ddmin``: a 1-minimal sublist of ``items`` for which ``test`` holds (``test``
    must hold for ``items``; the order of ``items`` is kept)."""
    n = 2
    while len(items) >= 2:
        size = -(-len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        for chunk in chunks:
            if test(chunk):
                items, n = chunk, 2
                break
        else:
            for chunk in chunks:
                rest = [x for x in items if x not in chunk]
                if len(chunks) > 2 and test(rest):
                    items, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(items):
                    break
                n = min(len(items), 2 * n)
    return items


def _sub(inp: EvaluatorInput, docs: dict[str, list[str]]) -> tuple[QrelsDict, RunDict]:
    """The input restricted to ``docs`` (per query, the documents kept)."""
    qrels = {q: {d: inp.qrels[q][d] for d in ds if d in inp.qrels.get(q, {})}
             for q, ds in docs.items()}
    run = {q: {d: inp.run[q][d] for d in ds if d in inp.run.get(q, {})} for q, ds in docs.items()}
    return {q: v for q, v in qrels.items() if v}, {q: v for q, v in run.items() if v}


def _undefined(value: float | None) -> bool:
    return value is None or math.isnan(value)


def shrink(row: EvaluatorRow, inp: EvaluatorInput, target: str, runner: Runner,
           tol: float) -> Reproducer | None:
    """The smallest input found on which ``target`` still disagrees in the same way (a value
    on both sides, or the same side undefined, as on the full input: a shrunk query where the
    tool says NaN is another disagreement than the one found), ``None`` when the full input does
    not show it again (e.g. a tool that is not deterministic)."""
    profile = get_profile(row.profile)
    label = measure_label(row.provider, row.measure)
    budget = [0]
    last: dict[str, Any] = {}
    kind: dict[str, tuple[bool, bool]] = {}  # which side is undefined, fixed by the full input

    def test(docs: dict[str, list[str]]) -> bool:
        if budget[0] >= BUDGET:
            return False
        budget[0] += 1
        qrels, run = _sub(inp, docs)
        try:
            tool = runner.compute(qrels, run, [(row.provider, row.measure)])[label]
            ours = ltrbench_values(qrels, run, row.metric, profile)
        except (ToolFailure, LtrbenchError, KeyError):
            return False
        if target not in compare(tool, ours, tol)[1]:
            return False
        shape = (_undefined(tool.get(target)), _undefined(ours.get(target)))
        if kind.setdefault("shape", shape) != shape:  # another disagreement (e.g. NaN vs 0)
            return False
        last.update(qrels=qrels, run=run, tool=tool.get(target), ours=ours.get(target))
        return True

    all_docs = {q: list(dict.fromkeys([*inp.qrels.get(q, {}), *inp.run.get(q, {})]))
                for q in dict.fromkeys([*inp.qrels, *inp.run])}
    if not test(all_docs):
        return None
    base = [target] if target in all_docs else []  # a query the tool made up: not in the input
    others: list[str] = []
    if not base or not test({target: all_docs[target]}):  # the defect needs other queries too
        others = ddmin([q for q in all_docs if q != target],
                       lambda qs: test({q: all_docs[q] for q in [*base, *qs]}))
    kept = {q: all_docs[q] for q in [*base, *others]}
    for q in list(kept):
        kept[q] = ddmin(kept[q], lambda ds, q=q: test({**kept, q: ds}))  # type: ignore[misc]
    test(kept)  # leaves ``last`` at the final input
    return Reproducer(last["qrels"], last["run"], target, last["tool"], last["ours"], budget[0])


__all__: Sequence[str] = ("FIELD_VALUES", "ddmin", "explain", "shrink", "variants")
