"""``evaluators.md`` / ``evaluators.json``: the report of ``ltrbench crosscheck --evaluators``."""

from __future__ import annotations

import json
import math
import platform
import sys
from pathlib import Path
from typing import Any

from bench.crosscheck.evaluator_compare import FLOAT32_TOL, TOL, Disagreement
from bench.crosscheck.evaluator_table import DIVERSITY_NOTE
from bench.crosscheck.evaluators import EvaluatorsResult, RowResult
from bench.data.atomic import replace_file_set

#: The files :func:`write_evaluators` owns in ``<out>/definitions``.
FILES = ("evaluators.md", "evaluators.json")
#: Queries named per disagreement in the Markdown (the JSON lists them all).
SHOWN = 8


def _num(x: float | None) -> str:
    if x is None:
        return "no value"
    return "NaN" if math.isnan(x) else f"{x:.6g}"


def _json_num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


def _disagreement_dict(d: Disagreement) -> dict[str, Any]:
    q, tool, ours = d.example
    out: dict[str, Any] = {"case": d.case, "kind": d.kind, "reason": d.reason,
                           "queries": d.queries, "fields": d.fields, "profiles": d.profiles,
                           "example": {"query": q, "tool": _json_num(tool),
                                       "ltrbench": _json_num(ours)}}
    r = d.reproducer
    if r is not None:
        qrels, run = r.trec_lines()
        out["reproducer"] = {"query": r.query, "tool": _json_num(r.tool_value),
                             "ltrbench": _json_num(r.ltrbench_value), "qrels": qrels,
                             "run": run, "evaluations": r.tests}
    return out


def result_dict(result: EvaluatorsResult) -> dict[str, Any]:
    """The JSON document as a dict."""
    return {
        "date": result.date, "python": platform.python_version(), "isolated": result.isolated,
        "ok": result.ok, "versions": result.versions,
        "inputs": [{"name": i.name, "queries": i.n_queries, "description": i.description}
                   for i in result.inputs],
        "rows": [{"tool": r.row.tool, "provider": r.row.provider, "measure": r.row.measure,
                  "metric": r.row.metric, "profile": r.row.profile, "status": r.status,
                  "note": r.note, "queries": r.n_queries, "agreeing": r.agreeing,
                  "refused": r.refused, "failures": r.failures,
                  "disagreements": [_disagreement_dict(d) for d in r.disagreements]}
                 for r in result.rows],
        "diversity": DIVERSITY_NOTE,
    }


def _environment() -> str:
    """The versions of the libraries the tools stand on (NumPy, pandas, numba)."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for dist in ("numpy", "pandas", "numba"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist} not installed")
    return ", ".join(out)


def _verdict(r: RowResult) -> str:
    if r.status != "compared":
        return f"{r.status}: {r.note}"
    failed = [f"failed on {f}" for f in r.failures]
    if not r.disagreements:
        return "; ".join(["agrees" + (f" ({r.refused} refused by the tool)" if r.refused else ""),
                          *failed])
    kinds = failed
    for d in r.disagreements:
        kinds.append(f"{len(d.queries)} on `{d.case}`: {d.reason}")
    return "; ".join(kinds)


def _details(r: RowResult) -> list[str]:
    lines: list[str] = []
    for d in r.disagreements:
        q, tool, ours = d.example
        shown = ", ".join(d.queries[:SHOWN]) + (" ..." if len(d.queries) > SHOWN else "")
        lines += [f"### {r.row.label} (`{r.row.metric}` under `{r.row.profile}`), `{d.case}`", "",
                  f"- {d.reason}; {len(d.queries)} queries: {shown}",
                  f"- e.g. query `{q}`: tool {_num(tool)}, ltrbench {_num(ours)}"]
        rep = d.reproducer
        if d.kind == "defect" and rep is None:
            lines.append("- no reproducer: the full input did not show it again")
        elif rep is not None:
            qrels, run = rep.trec_lines()
            lines += [f"- smallest input found ({rep.tests} evaluations): query `{rep.query}`, "
                      f"tool {_num(rep.tool_value)}, ltrbench {_num(rep.ltrbench_value)}", "",
                      "```", "# qrels", *qrels, "# run", *run, "```"]
        lines.append("")
    return lines


def render_evaluators(result: EvaluatorsResult) -> str:
    """The Markdown report: versions, inputs, one table row per measure, then every
    disagreement with its reason (and a reproducer for each defect)."""
    lines = [
        "# Evaluation libraries against ltrbench, query by query", "",
        f"Measured {result.date} with Python {platform.python_version()} ({sys.platform}) by "
        "`ltrbench crosscheck --evaluators`. Each library computed its measures of the same qrels "
        f"and run{' in a process of its own' if result.isolated else ''}; ltrbench computed "
        "the metric of each row under the profile that claims to reproduce it. A query agrees "
        f"when both values are within {TOL:g} ({FLOAT32_TOL:g} for a profile that divides in "
        "float32) or both are undefined. A disagreement is a *convention* when a change of "
        "profile fields (named) gives the tool's numbers without changing an agreeing query, "
        "otherwise a *defect* of the tool, shown with the smallest input found that still "
        "disagrees (delta debugging).", "", "Tools:", ""]
    lines += [f"- {t}: {v if v is not None else 'not installed'}"
              for t, v in result.versions.items()]
    lines += ["", f"Diversity rows: {DIVERSITY_NOTE}."]
    lines += ["", f"Environment: {_environment()}. Reproduce with `ltrbench crosscheck "
              "--evaluators --out <folder>` (the built-in cases below), or on your data with "
              "`--qrels FILE --trec-run FILE` or `--data FILE --scores FILE`."]
    lines += ["", "Inputs:", ""]
    lines += [f"- `{i.name}` ({i.n_queries} queries): {i.description}" for i in result.inputs]
    compared = [r for r in result.rows if r.status == "compared"]
    lines += ["", f"Rows compared: {len(compared)}, agreeing on every query: "
              f"{sum(not r.disagreements for r in compared)}, with a convention difference: "
              f"{sum(any(d.kind == 'convention' for d in r.disagreements) for r in compared)}, "
              f"with a defect: {sum(bool(r.defects) for r in compared)}, failed: "
              f"{sum(r.status == 'failed' for r in result.rows)}{_partly(compared)}, skipped: "
              f"{sum(r.status == 'skipped' for r in result.rows)}.", "",
              "| tool | measure | ltrbench metric | profile | queries | agree | verdict |",
              "|---|---|---|---|---|---|---|"]
    for r in result.rows:
        where = f"{r.row.tool}[{r.row.provider}]" if r.row.provider else r.row.tool
        note = f" ({r.row.note})" if r.row.note and r.status == "compared" else ""
        lines.append(f"| {where} | `{r.row.measure}` | `{r.row.metric}` | `{r.row.profile}` | "
                     f"{r.n_queries or '-'} | {r.agreeing if r.status == 'compared' else '-'} | "
                     f"{_verdict(r)}{note} |")
    details = [line for r in result.rows for line in _details(r)]
    if details:
        lines += ["", "## Disagreements", "", *details]
    return "\n".join(lines).rstrip() + "\n"


def evaluators_json(result: EvaluatorsResult) -> str:
    """The JSON document, indented, with a final newline."""
    return json.dumps(result_dict(result), indent=1, allow_nan=False, default=str) + "\n"


def write_evaluators(result: EvaluatorsResult, out: str | Path) -> dict[str, Path]:
    """Write ``<out>/definitions/evaluators.{md,json}`` as one set; their paths by suffix."""
    dest = Path(out) / "definitions"
    with replace_file_set(dest, FILES) as tmp:
        (tmp / "evaluators.md").write_text(render_evaluators(result), encoding="utf-8")
        (tmp / "evaluators.json").write_text(evaluators_json(result), encoding="utf-8")
    return {"md": dest / "evaluators.md", "json": dest / "evaluators.json"}


def _partly(compared: list[RowResult]) -> str:
    """`` (and N on some inputs)``: compared rows whose tool failed on some inputs (the summary
    counts as failed only rows that failed on every input)."""
    n = sum(bool(r.failures) for r in compared)
    return f" (and {n} on some inputs)" if n else ""
