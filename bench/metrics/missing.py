"""Queries that have judgments but no scored document (``Profile.missing``).

Under ``missing="zero"`` (trec_eval ``-c``, ir_measures, ranx) such a query is evaluated like any
other with an empty ranking: every kernel component is 0, ``R`` and "has a positive gain" come
from its judgments, and :func:`bench.metrics.aggregate.per_query_values` turns that into values
exactly as for a scored query -- 0 in every metric, or the profile's ``empty`` value where the
query has no relevant judgment (``R = 0``). ``R`` is the judged relevant count whatever the
profile's IDCG basis (there is no list to count), so a query with relevant judgments is never
blank here.

Which queries are missing and what each profile does with them is said once per
:func:`bench.metrics.evaluate_trec` call by a :class:`MissingQueriesWarning` (the CLI prints it as
one ``warning:`` line): their number, the first ids (string order) and, per metric, ``left out``
(``missing="drop"``) or ``scored 0`` (``missing="zero"``), the profile's ``missing_for(family)``.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Sequence
from types import TracebackType
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray

import bench.metrics.aggregate as aggregate
from bench.errors import ConfigError
from bench.metrics.components import Components, build_request
from bench.metrics.names import MetricSpec
from bench.metrics.peer_names import read_ir_measures
from bench.metrics.profiles import Profile
from bench.metrics.query_parts import QueryParts


def missing_parts(
    query_ids: NDArray[Any],
    r_judged: NDArray[np.float64],
    has_gain: NDArray[np.bool_],
    specs: Sequence[MetricSpec],
    prof: Profile,
    *,
    ties_k: int | None,
    backend: str,
) -> QueryParts:
    """Per-query parts of queries without a scored document (see the module docstring).

    ``r_judged``: relevant judgments per query; ``has_gain``: whether a judgment has a positive
    gain (NDCG, DCG and ERR are blank without one).
    """
    n_q = int(query_ids.shape[0])
    request = build_request(specs, prof)
    comps = Components(
        n=np.zeros(n_q, dtype=np.int64), r_list=np.zeros(n_q), r_basis=r_judged.astype(np.float64),
        has_gain=has_gain.astype(bool), ties=np.zeros(n_q, dtype=bool),
    )
    for comp, ks in request.ks.items():
        for k in ks:
            comps.values[(comp, k)] = np.zeros(n_q)
    values: dict[str, NDArray[np.float64]] = {}
    blanks: dict[str, NDArray[np.bool_]] = {}
    sums: dict[str, tuple[float, float]] = {}
    for spec in specs:
        if spec.pointwise:
            values[spec.name] = np.full(n_q, np.nan)
            sums[spec.name] = (0.0, 0.0)
            continue
        values[spec.name], blanks[spec.name] = aggregate.per_query_values(spec, comps, prof)
    return QueryParts(
        query_ids=query_ids, values=values, blank=blanks, query_weights=None,
        has_gain=comps.has_gain, n=comps.n, ties=comps.ties, pointwise_sums=sums,
        n_documents=0, backend=backend, ties_k=ties_k,
    )


class MissingQueriesWarning(UserWarning):
    """Qrels queries without a run line: how many, the first ids, what the profile did with them
    (left out of the mean, or scored 0 and counted), per metric where that differs."""


#: How many missing query ids a warning names.
SHOWN_IDS = 5


def missing_query_ids(qrels_qid: NDArray[Any], run_qid: NDArray[Any]) -> NDArray[Any]:
    """The qrels query ids (any judgment) that have no run line, sorted as strings (with the
    arguments swapped: the run's query ids without qrels)."""
    names = np.unique(np.asarray(qrels_qid).astype(str))
    return names[~np.isin(names, np.asarray(run_qid).astype(str))]


def ir_spelled(spec: MetricSpec) -> bool:
    """Whether ``spec`` was read by another grammar than ir_measures (``P@5``, ``R@100``:
    ltrbench's table headers; ``Rprec``: trec_eval's name) from a spelling that ir_measures
    spells exactly so, where ir_measures scores a qrels query without a run line 0."""
    if spec.grammar == "ir_measures" or spec.explicit:
        return False
    try:
        ir = read_ir_measures(spec.key)
    except ConfigError:
        return False
    head = re.split(r"[(@]", spec.key.strip(), maxsplit=1)[0].strip()
    return ir is not None and head in (ir[1].name, *ir[1].aliases)


def warn_missing(ids: NDArray[Any], run_path: str,
                 plan: Sequence[tuple[Profile, Sequence[tuple[str, str]]]], *,
                 stacklevel: int = 3, run_only: NDArray[Any] | None = None,
                 ir_spellings: Sequence[str] = ()) -> None:
    """Issue a :class:`MissingQueriesWarning` for the qrels queries ``ids`` that ``run_path``
    lacks; ``plan``: ``[(profile, [(metric name, "drop" | "zero"), ...]), ...]``, one entry
    per profile the metrics were computed under. ``run_only``: the run's query ids without
    qrels (ignored, as trec_eval ignores them), named too: ``01`` in the run beside ``1`` in
    the qrels is two queries, and the warning says so. ``ir_spellings``: the keys
    :func:`ir_spelled` finds; one that left the queries out is said to be read so (ir_measures'
    measure of that spelling scores them 0). Nothing when ``ids`` is empty."""
    if not ids.shape[0]:
        return
    head = _head(ids, run_path)
    policies = {pol for _, metrics in plan for _, pol in metrics}
    if len(plan) == 1 and len(policies) == 1:
        tail = f"under profile {plan[0][0].name!r} {_action(policies.pop())}"
    else:
        parts = []
        for prof, metrics in plan:
            by_policy: dict[str, list[str]] = {}
            for metric, pol in metrics:
                by_policy.setdefault(pol, []).append(metric)
            parts.append(f"profile {prof.name!r}: " + "; ".join(
                f"{', '.join(ms)}: {_short(pol)}" for pol, ms in by_policy.items()))
        tail = "per metric -- " + "; ".join(parts)
    if any(p.empty is None and pol == "zero" for p, metrics in plan for _, pol in metrics):
        tail += ("; under 'scored 0', a query without a relevant judgment is blank and left out "
                 "(empty=None)")
    dropped = [m for _, metrics in plan for m, pol in metrics if pol == "drop"
               and m in ir_spellings]
    if dropped:  # P@5 typed by an ir_measures user: its number differs exactly here
        tail += (f"; {', '.join(dropped)}: ir_measures spells its own measure so, which scores "
                 f"such a query 0; here {'it is' if len(dropped) == 1 else 'they are'} read "
                 "as ltrbench's table header or trec_eval's name under the profile above "
                 f"(ir_measures' value: trec_eval-c:{dropped[0]}, or --profile trec_eval-c)")
    if run_only is not None and run_only.shape[0]:
        m = int(run_only.shape[0])
        tail += (f"; the run's {m} {'query' if m == 1 else 'queries'} without qrels "
                 f"({_shown(run_only)}) {'is' if m == 1 else 'are'} ignored (query ids are "
                 "compared as text: '01' is not '1')")
    warnings.warn(f"{head}: {tail}", MissingQueriesWarning, stacklevel=stacklevel)


def _head(ids: NDArray[Any], run_path: str) -> str:
    n = int(ids.shape[0])
    return (f"{n} qrels {'query has' if n == 1 else 'queries have'} no run line in {run_path} "
            f"({_shown(ids)})")


def warn_dropped(ids: NDArray[Any], run_path: str, said: str, *, stacklevel: int = 3) -> None:
    """The :class:`MissingQueriesWarning` of a run comparison that left the qrels queries
    ``ids`` (which ``run_path`` lacks) out of every run and metric: the per-run warning
    ``said`` (what each metric's profile would do, ``nDCG@10: scored 0 and counted``) is not
    what the comparison did. Its note on the run's queries without qrels is kept."""
    if not ids.shape[0]:
        return
    them = "it" if ids.shape[0] == 1 else "them"
    note = said[said.index("; the run's "):] if "; the run's " in said else ""
    warnings.warn(f"{_head(ids, run_path)}: the comparison leaves {them} out of every run and "
                  "metric (missing='drop'; --missing zero / missing='zero' scores "
                  f"{them} 0 and counts {them}, as trec_eval -c){note}", MissingQueriesWarning,
                  stacklevel=stacklevel)


def _shown(ids: NDArray[Any]) -> str:
    """The first :data:`SHOWN_IDS` of ``ids``, ``", ..."`` when there are more."""
    return ", ".join(_printable(str(q)) for q in ids[:SHOWN_IDS]) + (
        ", ..." if ids.shape[0] > SHOWN_IDS else "")


def _printable(qid: str) -> str:
    """An id as it can stand on one line (``repr`` when it holds a line break or a control)."""
    return qid if qid.isprintable() else repr(qid)


def _short(policy: str) -> str:
    return "scored 0 and counted" if policy == "zero" else "left out"


def _action(policy: str) -> str:
    if policy == "zero":
        return "they are scored 0 in every metric and counted in the mean (missing='zero')"
    return ("they are left out of the mean (missing='drop'; trec_eval-c, or any profile with "
            "missing='zero', scores them 0)")


class warnings_as_lines(contextlib.ContextDecorator):
    """Within it (or the function it decorates), warnings of ``categories`` (default:
    :class:`MissingQueriesWarning`) are printed as one line ``warning: MESSAGE`` on ``stream``
    (standard error) instead of Python's two-line ``file:line: Category: ...`` form; other
    warnings are shown as before. For command-line entry points."""

    def __init__(self, *categories: type[Warning], stream: TextIO | None = None) -> None:
        self.categories = categories or (MissingQueriesWarning,)
        self.stream = stream
        self._saved: list[Any] = []

    def __enter__(self) -> warnings_as_lines:
        previous = warnings.showwarning
        self._saved.append(previous)

        def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
            if issubclass(category, self.categories):
                print(f"warning: {message}", file=self.stream or sys.stderr)
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        warnings.showwarning = self._saved.pop()
