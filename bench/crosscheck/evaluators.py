"""The evaluation libraries checked against ltrbench, query by query (``ltrbench crosscheck
--evaluators``).

For each input (the user's qrels and run, a LETOR file with its scores, or the built-in probe
cases of :mod:`bench.crosscheck.evaluator_table`) every installed library of
:data:`~bench.crosscheck.evaluator_tools.TOOLS` computes its measures of
:data:`~bench.crosscheck.evaluator_table.TABLE` in a worker process of its own, and ltrbench
computes the metric of each row under the row's profile (:func:`bench.metrics.trec.evaluate_trec`).
A query agrees when both values are equal within :func:`tolerance` (or both NaN / both absent).
Each disagreeing query gets a reason (:mod:`bench.crosscheck.evaluator_explain`): a *convention*
(the profile field, and its value, under which ltrbench gives the tool's numbers; fields grouped as
:data:`bench.metrics.reconcile.STEPS` groups them) or, where no convention explains it, a
*defect* of the tool, with the smallest input that still shows it (delta debugging).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.crosscheck.evaluator_compare import Disagreement, compare, ltrbench_values, tolerance
from bench.crosscheck.evaluator_table import TABLE, EvaluatorInput, EvaluatorRow, row_gap
from bench.crosscheck.evaluator_tools import (
    TOOLS,
    QrelsDict,
    RunDict,
    Tool,
    measure_label,
    tool_version,
)
from bench.crosscheck.evaluator_worker import InProcess, ToolFailure, Worker
from bench.errors import ConfigError, DataError, LtrbenchError, did_you_mean
from bench.metrics.profiles import get_profile

if TYPE_CHECKING:
    from bench.data.trec import Qrels

Runner = Worker | InProcess
Progress = Callable[[str], None]


@dataclass
class RowResult:
    """One table row over every input: ``status`` ``compared``, ``skipped`` (``note`` says why)
    or ``failed`` (the tool or ltrbench raised on every input: ``note``); ``failures``: the
    inputs where one of them raised."""

    row: EvaluatorRow
    status: str
    note: str = ""
    n_queries: int = 0
    agreeing: int = 0
    refused: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def defects(self) -> list[Disagreement]:
        """The disagreements no convention explains."""
        return [d for d in self.disagreements if d.kind == "defect"]


@dataclass
class EvaluatorsResult:
    """The whole check: the inputs, the tools and their versions (``None``: not installed)."""

    inputs: list[EvaluatorInput]
    versions: dict[str, str | None]
    rows: list[RowResult]
    isolated: bool
    date: str = field(default_factory=lambda: date.today().isoformat())

    @property
    def ok(self) -> bool:
        """No defect and no failure (skipped rows do not count)."""
        return all(not r.failures and not r.defects for r in self.rows)


def _clean(values: dict[str, Any]) -> dict[str, float | None]:
    """A tool's per-query values as floats; anything else is the tool's failure."""
    out: dict[str, float | None] = {}
    for q, v in values.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise ToolFailure(f"query {q!r}: the tool returned {v!r}, not a number")
        out[str(q)] = None if v is None else float(v)
    return out


def _check_row(row: EvaluatorRow, inputs: Sequence[EvaluatorInput], runner: Runner,
               progress: Progress | None) -> RowResult:
    """One compared row: per input, the tool's values (one call per row, so that a measure the
    tool fails on fails its row only) vs the profile's per query, disagreements explained."""
    from bench.crosscheck.evaluator_explain import explain

    profile = get_profile(row.profile)
    tol = tolerance(profile) if row.tol is None else row.tol
    result = RowResult(row, "compared")
    label = measure_label(row.provider, row.measure)
    mine = [i for i in inputs if (i.subtopics is not None if row.subtopics else bool(i.qrels))]
    if not mine:
        return RowResult(row, "skipped", "no input has subtopic qrels ('qid subtopic docno rel')"
                         if row.subtopics else "no input has ordinary qrels")
    for inp in mine:
        qrels = inp.subtopics if row.subtopics and inp.subtopics is not None else inp.qrels
        try:
            values = runner.compute(qrels, inp.run, [(row.provider, row.measure)])
            if not isinstance(values, dict) or not isinstance(values.get(label), dict):
                raise ToolFailure(f"the tool returned no per-query values for {row.measure!r}")
            tool = _clean(values[label])
        except ToolFailure as exc:
            result.failures.append(f"`{inp.name}`: {row.tool} failed: {exc}")
            continue
        try:
            ours = ltrbench_values(qrels, inp.run, row.metric, profile, subtopics=row.subtopics)
        except LtrbenchError as exc:
            result.failures.append(f"`{inp.name}`: ltrbench refused the input: {exc}")
            continue
        same, differ, refused = compare(tool, ours, tol)
        result.n_queries += len(same) + len(differ) + len(refused)
        result.agreeing += len(same)
        result.refused += len(refused)
        if differ:
            if progress is not None:
                progress(f"{row.label} on {inp.name}: {len(differ)} queries disagree; explaining")
            result.disagreements += (
                [_unexplained(inp, tool, ours, differ)] if row.subtopics
                else explain(row, inp, tool, ours, same, differ, runner, tol))
    if len(result.failures) == len(mine):
        result.status, result.note = "failed", "; ".join(result.failures)
    return result


def _unexplained(inp: EvaluatorInput, tool: dict[str, float | None], ours: dict[str, float],
                 differ: list[str]) -> Disagreement:
    """A diversity row's disagreement: reported as found (the conventions' search and delta
    debugging read ordinary qrels, not subtopic judgments)."""
    q = differ[0]
    return Disagreement(inp.name, "defect", differ, (q, tool.get(q), ours.get(q)))


def _tool_rows(tool: Tool, rows: Sequence[EvaluatorRow]) -> list[EvaluatorRow]:
    return [r for r in rows if r.tool == tool.name]


def _run_tool(tool: Tool, rows: list[EvaluatorRow], inputs: Sequence[EvaluatorInput],
              isolate: bool, progress: Progress | None) -> list[RowResult]:
    """Every row of one installed tool: its skipped rows, then the compared ones."""
    out = [RowResult(r, "skipped", gap) for r in rows if (gap := row_gap(r)) is not None]
    live = [r for r in rows if row_gap(r) is None]
    if not live:
        return out
    runner: Runner = Worker(tool.compute) if isolate else InProcess(tool.compute)
    try:
        for r in live:
            out.append(_check_row(r, inputs, runner, progress))
    finally:
        runner.close()
    return out


def crosscheck_evaluators(inputs: Sequence[EvaluatorInput] | None = None, *,
                          tools: Sequence[Tool] = TOOLS,
                          rows: Sequence[EvaluatorRow] = TABLE,
                          only: Sequence[str] | None = None, isolate: bool = True,
                          progress: Progress | None = None) -> EvaluatorsResult:
    """Run every installed tool of ``tools`` on ``inputs`` (default: the probe cases) and compare
    each row of ``rows`` per query with ltrbench (see the module docstring). ``only``: the tool
    names to run (a ConfigError names the valid ones, and a named tool that is not installed:
    without ``only`` such a tool's rows are skipped, with the reason); ``isolate``: one worker
    process per tool.
    """
    from bench.crosscheck.evaluator_table import DIVERSITY_NOTE, TOOL_OF, probe_cases

    cases = list(probe_cases() if inputs is None else inputs)
    if not cases:
        raise DataError("nothing to cross-check: no input (give qrels and a run, or a data "
                        "file and its scores, or none for the built-in cases)")
    names = [t.name for t in tools]
    if only is not None:
        unknown = [n for n in only if n not in names]
        said = next((n for n in unknown if n in TOOL_OF), None)
        if said is not None:  # ndeval's measures: rows of another tool
            raise ConfigError(f"{said!r} is not a tool of this check: ndeval's measures are "
                              f"rows of --tools {TOOL_OF[said]} (its pyndeval provider); "
                              f"{DIVERSITY_NOTE}")
        if unknown or not only:
            hint = did_you_mean(unknown[0], names) if unknown else ""  # 'RANX': 'ranx'?
            raise ConfigError(f"unknown evaluation tool {', '.join(map(repr, unknown)) or '(none)'}"
                              f"; {hint}valid: {', '.join(names)}")
        tools = [t for t in tools if t.name in only]
    versions = {t.name: tool_version(t) for t in tools}
    absent = [t for t in tools if only is not None and versions[t.name] is None]
    if absent:  # asked for by name: compared, or refused -- never a row of 'skipped' and exit 0
        raise ConfigError("evaluation tool named but not installed: " + "; ".join(
            f"{t.name}{f' ({t.hint})' if t.hint else ''}" for t in absent)
            + "; install it or leave it out of the tools")
    results: list[RowResult] = []
    for tool in tools:
        mine = _tool_rows(tool, rows)
        if versions[tool.name] is None:
            hint = f" ({tool.hint})" if tool.hint else ""
            results += [RowResult(r, "skipped", f"{tool.name} is not installed{hint}"
                                  + (f"; {gap}" if (gap := row_gap(r)) else ""))
                        for r in mine]
            continue
        if progress is not None:
            progress(f"{tool.name} {versions[tool.name]}: {len(mine)} measures")
        results += _run_tool(tool, mine, cases, isolate, progress)
    return EvaluatorsResult(cases, versions, results, isolate)


def trec_input(qrels_path: str | Path, run_path: str | Path) -> EvaluatorInput:
    """A qrels file and a run file (:func:`bench.data.trec.read_qrels`, ``read_run``).

    The qrels file is read once, as ndeval reads it (``read_qrels(subtopics=True)``: the second
    column a whole number), and both views come from those rows: the subtopic judgments when a
    subtopic other than 0 appears (the diversity rows), and the ordinary judgments when each
    (query, document) is judged once. Only a file whose second column is not a whole number
    (``Q0``: trec_eval never reads it, ``get_qrels.c``) or that judges a document twice is read
    again, as ordinary qrels, whose reader says what it says."""
    from bench.data.trec import NotDiversityQrels, read_qrels, read_run

    qrels: QrelsDict = {}
    subtopics: QrelsDict | None = None
    try:  # any other DataError: a line that neither reading accepts, the same error either way
        read = read_qrels(qrels_path, subtopics=True)
    except NotDiversityQrels:
        read = read_qrels(qrels_path)  # the ordinary reading (its own message, line)
    else:
        subtopics = _subtopic_input(read)
    pairs = list(zip(read.qid.tolist(), read.docno.tolist(), read.rel.tolist(), strict=True))
    if len({(q, d) for q, d, _ in pairs}) == len(pairs):  # one judgment per document
        for q, d, r in pairs:
            qrels.setdefault(str(q), {})[str(d)] = int(r)
    run_file = read_run(run_path)
    run: RunDict = {}
    for q, d, s in zip(run_file.qid.tolist(), run_file.docno.tolist(), run_file.score.tolist(),
                       strict=True):
        run.setdefault(str(q), {})[str(d)] = float(s)
    return EvaluatorInput(Path(run_path).name, qrels, run, f"qrels {qrels_path}, run {run_path}"
                          + (" (subtopic qrels: the diversity rows)" if subtopics else ""),
                          subtopics)


def _letor_data(data_path: str | Path, query_path: str | Path | None, parquet: bool) -> Any:
    """The rows of ``data_path`` as read, never reordered: a query whose rows are apart is
    refused with what to do here (this command has no ``--sort-by-qid``)."""
    from bench.data.groups import SORT_HINT
    from bench.data.parquet import read_parquet
    from bench.data.svmlight import read_svmlight

    if parquet and query_path is not None:
        raise DataError(f"--query {query_path}: a Parquet split holds its queries in its 'qid' "
                        "column", path=data_path)
    try:
        return read_parquet(data_path) if parquet else read_svmlight(
            data_path, query_path=query_path, features=False)
    except DataError as exc:
        if SORT_HINT not in exc.reason:
            raise
        raise DataError(exc.reason.replace(SORT_HINT, (
            "sort the file by qid, each query's rows kept in their order, with its scores file "
            "in the same order (crosscheck --evaluators reads --data as it is; ltrbench evaluate "
            "has --sort-by-qid)")), path=exc.path, line=exc.line, row=exc.row,
            column=exc.column) from None


def _subtopic_input(read: Qrels) -> QrelsDict | None:
    """The qrels read with ``subtopics=True`` as subtopic judgments (a subtopic other than 0
    somewhere: :func:`bench.metrics.diversity.subtopic_qrels`), else ``None``."""
    from bench.crosscheck.evaluator_tools import subtopic_key
    from bench.metrics.diversity import subtopic_qrels

    try:
        subtopic_qrels(read)
    except LtrbenchError:
        return None
    assert read.subtopic is not None
    out: QrelsDict = {}
    for q, t, d, r in zip(read.qid.tolist(), read.subtopic.tolist(), read.docno.tolist(),
                          read.rel.tolist(), strict=True):
        out.setdefault(str(q), {})[subtopic_key(int(t), str(d))] = int(r)
    return out


def letor_input(data_path: str | Path, scores_path: str | Path,
                query_path: str | Path | None = None) -> EvaluatorInput:
    """A LETOR/SVMlight file (or a LETOR Parquet split, as ``evaluate --data`` reads one) and
    its scores file: each row a judged document ``d<row>`` of its query (rows numbered from 1 in
    file order); labels must be whole numbers (a bad one named by its file line)."""
    from bench.data.scores import read_scores
    from bench.data.svmlight import line_of_data_row
    from bench.metrics.scored_file import is_parquet_path

    parquet = is_parquet_path(data_path)
    data = _letor_data(data_path, query_path, parquet)
    scores = read_scores(scores_path, data.n_rows, np.asarray(data.qid))
    labels = np.asarray(data.y)
    bad = np.flatnonzero(labels != np.round(labels))
    if bad.shape[0]:
        row = int(bad[0]) + 1
        raise DataError(f"label {float(labels[bad[0]]):g} is not a whole number: the evaluation "
                        "libraries take integer relevance levels", path=data_path, row=row,
                        line=None if parquet else line_of_data_row(data_path, row))
    qrels: QrelsDict = {}
    run: RunDict = {}
    for i, (q, y, s) in enumerate(zip(np.asarray(data.qid).tolist(), labels.tolist(),
                                      scores.tolist(), strict=True)):
        qrels.setdefault(str(q), {})[f"d{i + 1}"] = int(y)
        run.setdefault(str(q), {})[f"d{i + 1}"] = float(s)
    return EvaluatorInput(Path(data_path).name, qrels, run,
                          f"data {data_path}, scores {scores_path}")
