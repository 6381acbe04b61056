"""The evaluation libraries as the evaluator cross-check runs them: one :class:`Tool` record per
library (how to find it, its version, the function that computes its measures per query) and
those functions.

Every function has the signature ``compute(qrels, run, measures) -> {label: {qid: value}}``:
``qrels`` ``{qid: {docno: relevance}}``, ``run`` ``{qid: {docno: score}}`` (documents in run
order), ``measures`` a list of ``(provider, measure)`` (``provider`` is ``""`` except for
ir_measures), ``label`` :func:`measure_label`, and ``value`` a float (NaN where the tool says
NaN) or ``None`` where the tool refuses the query (scikit-learn on a query of one document).
The functions import their tool when called, so a missing tool costs nothing; they run in a
worker process per tool (:mod:`bench.crosscheck.evaluator_worker`), because ir_measures and
pytrec_eval were seen returning other numbers when they shared a process
(``tests/test_hostile_evaluate_round5.py``).

Sources: pytrec_eval ``RelevanceEvaluator(qrels, measures).evaluate(run)`` (py/__init__.py);
ir_measures 0.4.3 ``providers.registry[name].evaluator(measures, qrels).iter_calc(run)``
(ir_measures/providers/base.py); ranx 0.3.21 ``evaluate(Qrels, Run, metrics,
make_comparable=True)`` with the per-query values left in ``Run.scores`` (ranx/meta/evaluate.py);
scikit-learn ``ndcg_score`` / ``dcg_score`` / ``roc_auc_score`` on one query at a time
(sklearn/metrics/_ranking.py); torchmetrics ``functional.retrieval_*`` on one query at a time
(src/torchmetrics/functional/retrieval/); TF-Ranking ``tfr.keras.metrics.<Name>Metric(topn=k)``
on a batch of one list (tensorflow_ranking/python/keras/metrics.py); allRank
``allrank.models.metrics.ndcg`` / ``mrr`` ``(y_pred, y_true, ats=[k])`` on a slate of one
(allrank/models/metrics.py). TF-Ranking and allRank are not installed where this was written: their
functions follow those sources and have not been run here.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import math
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

QrelsDict = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]
Measures = list[tuple[str, str]]
Values = dict[str, dict[str, float | None]]
Compute = Callable[[QrelsDict, RunDict, Measures], Values]


@dataclass(frozen=True)
class Tool:
    """An evaluation library: ``name`` (as the table names it), ``module`` (imported to find
    it), ``distribution`` (its version is read from this), ``compute`` (``"module:attr"`` of the
    function that computes its measures) and the ``hint`` to install it."""

    name: str
    module: str
    distribution: str
    compute: str
    hint: str = ""


TOOLS: tuple[Tool, ...] = (
    Tool("pytrec_eval", "pytrec_eval", "pytrec_eval-terrier",
         "bench.crosscheck.evaluator_tools:pytrec_eval_values", "pip install pytrec-eval-terrier"),
    Tool("ir_measures", "ir_measures", "ir_measures",
         "bench.crosscheck.evaluator_tools:ir_measures_values", "pip install ir-measures"),
    Tool("ranx", "ranx", "ranx", "bench.crosscheck.evaluator_tools:ranx_values",
         "pip install ranx"),
    Tool("sklearn", "sklearn", "scikit-learn", "bench.crosscheck.evaluator_tools:sklearn_values",
         "pip install scikit-learn"),
    Tool("torchmetrics", "torchmetrics", "torchmetrics",
         "bench.crosscheck.evaluator_tools:torchmetrics_values", "pip install torchmetrics"),
    Tool("tf-ranking", "tensorflow_ranking", "tensorflow-ranking",
         "bench.crosscheck.evaluator_tools:tf_ranking_values", "pip install tensorflow-ranking"),
    Tool("allrank", "allrank", "allRank", "bench.crosscheck.evaluator_tools:allrank_values",
         "pip install allRank"),
)


def subtopic_key(subtopic: int, docno: str) -> str:
    """How a subtopic judgment travels in a :data:`QrelsDict` (JSON to the worker):
    ``{qid: {"<subtopic> <docno>": rel}}``; a TREC docno holds no white space."""
    return f"{subtopic} {docno}"


def subtopic_lines(qrels: QrelsDict) -> list[tuple[str, int, str, int]]:
    """``(qid, subtopic, docno, rel)`` of qrels keyed by :func:`subtopic_key`."""
    out = []
    for q, docs in qrels.items():
        for key, rel in docs.items():
            subtopic, _, docno = key.partition(" ")
            out.append((q, int(subtopic), docno, int(rel)))
    return out


def measure_label(provider: str, measure: str) -> str:
    """``measure``, or ``provider:measure`` for an ir_measures provider."""
    return f"{provider}:{measure}" if provider else measure


def tool_version(tool: Tool) -> str | None:
    """The installed version of ``tool``, or ``None`` when it cannot be imported (checked by a
    real import: an installed distribution whose import fails counts as missing)."""
    if importlib.util.find_spec(tool.module) is None:
        return None
    try:
        return importlib.metadata.version(tool.distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def load_compute(path: str) -> Compute:
    """The function named by ``"module:attr"``."""
    module, _, attr = path.partition(":")
    fn: Compute = getattr(importlib.import_module(module), attr)
    return fn


def _num(v: Any) -> float:
    return float(v)


def pytrec_eval_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """pytrec_eval's per-query values (trec_eval 9.0.8: queries of the run that have qrels)."""
    import pytrec_eval

    names = {m for _, m in measures}
    res = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    out: Values = {}
    for provider, m in measures:
        key = re.sub(r"\.", "_", m)
        out[measure_label(provider, m)] = {q: _num(v[key]) for q, v in res.items() if key in v}
    return out


def ir_measures_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """ir_measures' per-query values through the provider each measure names."""
    import ir_measures

    out: Values = {}
    for provider, m in measures:
        measure = ir_measures.parse_measure(m)
        values: dict[str, float | None] = {}
        given: Any = qrels
        if provider == "pyndeval":  # subtopic qrels: the iteration column is the subtopic
            given = [ir_measures.Qrel(q, d, r, str(t)) for q, t, d, r in subtopic_lines(qrels)]
        with _object_strings(), _ranx_widened(provider):
            evaluator = ir_measures.providers.registry[provider].evaluator([measure], given)
            for metric in evaluator.iter_calc(run):
                values[str(metric.query_id)] = _num(metric.value)
        out[measure_label(provider, m)] = values
    return out


def _ranx_widened(provider: str) -> contextlib.AbstractContextManager[None]:
    """For ir_measures' ranx provider, ranx's builders widened
    (:func:`bench.crosscheck.ranx_objects.widened_builders`: one numba compile for every id
    length, in the worker process too); other providers run as they are."""
    if provider != "ranx":
        return contextlib.nullcontext()
    from bench.crosscheck.ranx_objects import widened_builders

    return widened_builders()


@contextlib.contextmanager
def _object_strings() -> Iterator[None]:
    """pandas 3 stores text columns as ``str`` by default; ir_measures 0.4.3's ranx provider
    builds its qrels and run DataFrames from Python strings and hands them to ranx 0.3.21's
    ``Qrels.from_df``, which asserts ``dtype == object`` (``ranx/data_structures/qrels.py``:
    "DataFrame Query IDs column dtype must be `object`"), so every ir_measures[ranx] measure
    failed under pandas 3 whatever the input. The option that keeps pandas 2's object columns
    is set for the call (a no-op where pandas has no such option)."""
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3 says the option is deprecated
        try:
            ctx: contextlib.AbstractContextManager[Any] = pd.option_context(
                "future.infer_string", False)
            ctx.__enter__()
        except (KeyError, ValueError, pd.errors.OptionError):
            ctx = contextlib.nullcontext()
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctx.__exit__(None, None, None)


def ranx_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """ranx's per-query values (``Run.scores`` after ``evaluate``, ``make_comparable=True``), its
    objects built by :mod:`bench.crosscheck.ranx_objects` (one numba compile for every id length)."""
    import ranx

    from bench.crosscheck import ranx_objects

    out: Values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for provider, m in measures:
            r = ranx_objects.run({q: dict(d) for q, d in run.items()})
            ranx.evaluate(ranx_objects.qrels({q: dict(d) for q, d in qrels.items()}), r, [m],
                          make_comparable=True)
            out[measure_label(provider, m)] = {str(q): _num(v) for q, v in r.scores[m].items()}
    return out


def _query_arrays(qrels: QrelsDict, run: RunDict) -> list[tuple[str, list[float], list[float]]]:
    """Per query of the run that has qrels: the labels (unjudged and negative: 0) and scores of
    its documents in run order."""
    rows = []
    for q, docs in run.items():
        if q not in qrels:
            continue
        judged = qrels[q]
        rows.append((q, [float(max(judged.get(d, 0), 0)) for d in docs],
                     [float(s) for s in docs.values()]))
    return rows


_SK_MEASURE = re.compile(r"^(ndcg_score|dcg_score|roc_auc_score)(?:\(([a-z_]+=\w+(?:,\s*"
                         r"[a-z_]+=\w+)*)\))?$")


def _sk_call(m: str) -> tuple[Any, dict[str, Any]]:
    """scikit-learn's function and keyword arguments of ``ndcg_score(k=10, ignore_ties=True)``."""
    import sklearn.metrics as skm

    match = _SK_MEASURE.match(m)
    if match is None:
        raise ValueError(f"unknown scikit-learn measure {m!r}")
    kwargs: dict[str, Any] = {}
    for part in filter(None, (match.group(2) or "").split(",")):
        key, _, value = part.strip().partition("=")
        kwargs[key] = {"True": True, "False": False}.get(value, value)
        if value.isdigit():
            kwargs[key] = int(value)
    return getattr(skm, match.group(1)), kwargs


def sklearn_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """scikit-learn's ranking functions on one query (one row) at a time; a query the function
    refuses (one document, one class) is ``None``."""
    import numpy as np

    out: Values = {}
    for provider, m in measures:
        fn, kwargs = _sk_call(m)
        values: dict[str, float | None] = {}
        for q, labels, scores in _query_arrays(qrels, run):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if fn.__name__ == "roc_auc_score":
                        v = fn(np.asarray(labels) > 0, np.asarray(scores))
                    else:
                        v = fn(np.asarray([labels]), np.asarray([scores]), **kwargs)
            except ValueError:
                values[q] = None
                continue
            values[q] = _num(v)
        out[measure_label(provider, m)] = values
    return out


_TM_MEASURE = re.compile(r"^(retrieval_[a-z_]+)(?:\(top_k=(\d+)\))?$")


def torchmetrics_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """torchmetrics' functional retrieval metrics on one query at a time (float32 tensors)."""
    import torch
    import torchmetrics.functional.retrieval as tmr

    out: Values = {}
    for provider, m in measures:
        match = _TM_MEASURE.match(m)
        if match is None:
            raise ValueError(f"unknown torchmetrics measure {m!r}")
        fn = getattr(tmr, match.group(1))
        kwargs = {} if match.group(2) is None else {"top_k": int(match.group(2))}
        values: dict[str, float | None] = {}
        for q, labels, scores in _query_arrays(qrels, run):
            target = torch.tensor(labels)
            if match.group(1) != "retrieval_normalized_dcg":
                target = target > 0
            v = float(fn(torch.tensor(scores, dtype=torch.float32), target, **kwargs))
            values[q] = v if not math.isnan(v) else math.nan
        out[measure_label(provider, m)] = values
    return out


_AT = re.compile(r"^([A-Za-z_]+)(?:\(k=(\d+)\))?$")


def _named(m: str, tool: str) -> tuple[str, int | None]:
    match = _AT.match(m)
    if match is None:
        raise ValueError(f"unknown {tool} measure {m!r}")
    return match.group(1), None if match.group(2) is None else int(match.group(2))


def tf_ranking_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """TF-Ranking's Keras metrics (``NDCGMetric(topn=k)`` ...) on one list at a time."""
    import tensorflow_ranking as tfr

    out: Values = {}
    for provider, m in measures:
        name, k = _named(m, "TF-Ranking")
        cls = getattr(tfr.keras.metrics, name)
        values: dict[str, float | None] = {}
        for q, labels, scores in _query_arrays(qrels, run):
            metric = cls(topn=k)
            metric.update_state([labels], [scores])
            values[q] = float(metric.result())
        out[measure_label(provider, m)] = values
    return out


def allrank_values(qrels: QrelsDict, run: RunDict, measures: Measures) -> Values:
    """allRank's ``ndcg`` / ``mrr`` ``(y_pred, y_true, ats=[k])`` on a slate of one list."""
    import torch
    from allrank.models import metrics

    out: Values = {}
    for provider, m in measures:
        name, k = _named(m, "allRank")
        fn = getattr(metrics, name)
        values: dict[str, float | None] = {}
        for q, labels, scores in _query_arrays(qrels, run):
            v = fn(torch.tensor([scores]), torch.tensor([labels]),
                   ats=None if k is None else [k])
            values[q] = float(v.reshape(-1)[0])
        out[measure_label(provider, m)] = values
    return out
