"""``versions.md`` / ``versions.json``: the report of ``ltrbench crosscheck --versions``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.crosscheck.versions import TOL, VersionReport, VersionsResult
from bench.data.atomic import replace_file_set

#: The files :func:`write_versions` owns in ``<out>/definitions``.
FILES = ("versions.md", "versions.json")


def _num(x: Any) -> str:
    return f"{x:.6f}" if isinstance(x, float) else str(x)


def _first_difference(d: dict[str, Any]) -> str:
    where = f"`{d['case']}`" + (f" query {d['query']}" if d["query"] is not None else " mean")
    delta = f" (difference {d['difference']:+.3g})" if d["difference"] is not None else ""
    return f"{where}: library {_num(d['library'])}, profile {_num(d['profile'])}{delta}"


def _release(r: VersionReport) -> str:
    return f"{r.library} {r.version or r.requested}"


def render_versions(result: VersionsResult) -> str:
    """The Markdown report: the environment, the cases, one table row per release x metric."""
    lines = [
        "# Which metric definition each release used",
        "",
        f"Measured {result.date} with Python {result.python} ({result.platform}) by "
        "`ltrbench crosscheck --versions`. Each release ran in its own virtual environment and "
        "computed its built-in metrics of fixed scores; every ltrbench profile (and its variants "
        "`gain=linear`, `weights-ignored`) evaluated the same cases. A profile *reproduces* a "
        f"metric when every per-query value and every case mean agree within {TOL:g} (or both "
        "refuse the case). The table names the plain profiles that do, and the variants only "
        "where no plain profile does (versions.json lists every match).",
        "",
        "Releases:",
        "",
    ]
    for r in result.reports:
        env = f"NumPy {r.numpy}" if r.error is None else "**failed**"
        lines.append(f"- {r.library} `{r.requested}` -> {r.version or '?'} ({env})")
    lines += ["", "Cases:", ""]
    lines += [f"- `{c.name}` ({c.group.shape[0]} queries, {c.labels.shape[0]} rows"
              f"{', query weights' if c.weights is not None else ''}): {c.description}"
              for c in result.cases]
    lines += ["", "| release | metric | reproduced by | closest profile: first difference |",
              "|---|---|---|---|"]
    plain = {c.label: not c.linear_gain and c.weighted for c in result.candidates}
    for r in result.reports:
        if r.error is not None:
            first = r.error.splitlines()[0]
            lines.append(f"| {_release(r)} | - | install or probe failed | {first} |")
            continue
        for row in r.rows:
            shown = [m for m in row.matches if plain[m]] or row.matches
            matched = ", ".join(f"`{m}`" for m in shown) or "**none**"
            diff = ("" if row.first_difference is None
                    else f"`{row.closest}`: {_first_difference(row.first_difference)}")
            lines.append(f"| {_release(r)} | `{row.metric}` | {matched} | {diff} |")
    failed = [r for r in result.reports if r.error is not None]
    if failed:
        lines += ["", "Failures:", ""]
        for r in failed:
            lines += [f"- {r.library}=={r.requested}:", "", "```", str(r.error), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def versions_json(result: VersionsResult) -> str:
    """The JSON document, indented, with a final newline."""
    return json.dumps(result.to_dict(), indent=1, allow_nan=False, default=str) + "\n"


def write_versions(result: VersionsResult, out: str | Path) -> dict[str, Path]:
    """Write ``<out>/definitions/versions.{md,json}`` as one set; their paths by suffix."""
    dest = Path(out) / "definitions"
    with replace_file_set(dest, FILES) as tmp:
        (tmp / "versions.md").write_text(render_versions(result), encoding="utf-8")
        (tmp / "versions.json").write_text(versions_json(result), encoding="utf-8")
    return {"md": dest / "versions.md", "json": dest / "versions.json"}
