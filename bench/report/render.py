"""``leaderboard.md`` and ``leaderboard.csv`` from the document of :mod:`bench.report.build`."""

from __future__ import annotations

import io
import json
from typing import Any

import pandas as pd

from bench.data.csv_cells import FORMULA_START as _FORMULA_START
from bench.data.csv_cells import same_cell
from bench.data.look_alike import shown_name
from bench.data.md_cells import CONTROL, md_text
from bench.errors import DataError
from bench.metrics.families import best_is_lowest, better, metric_header
from bench.report.stats import confidence_percent, fmt_p
from bench.runs.timing_checks import fmt_seconds

__all__ = ["CONTROL", "md_code", "md_text"]  # md_text, CONTROL: owned by bench.data.md_cells


def md_code(text: object) -> str:
    """``text`` as a code span when it is safe in one (no backtick, ``|`` or control
    character), else as escaped text (:func:`md_text`): a code span shows backslashes as they
    are, so it cannot hold an escaped character."""
    s = str(text)
    if "`" in s or "|" in s or CONTROL.search(s):
        return md_text(s)
    return f"`{s}`"


def comment_json(value: object) -> str:
    """``value`` as JSON that cannot end an HTML comment (``<`` and ``>`` as ``\\u003c`` /
    ``\\u003e``: the same string to a JSON reader)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e")


def _fmt(v: float | None, digits: int = 4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _fmt_ms(entry: dict[str, Any] | None, digits: int = 4) -> str:
    if not entry or entry.get("mean") is None:
        return ""
    if entry.get("std") is None:
        return _fmt(entry["mean"], digits)
    return f"{entry['mean']:.{digits}f} ± {entry['std']:.{digits}f}"


_seconds = fmt_seconds  # nonzero never "0.00" (bench.runs.timing_checks)


def fmt_fit_time(entry: dict[str, Any] | None) -> str:
    """``median [min–max]`` seconds over seeds × repeats, ``†`` when a fit was contended."""
    if not entry or entry.get("median") is None:
        if entry and entry.get("mean") is not None and abs(entry["mean"]) >= 1e6:
            std = entry.get("std")
            return _seconds(entry["mean"]) + ("" if std is None else f" ± {_seconds(std)}")
        return _fmt_ms(entry, 2)
    lo, mid, hi = entry["min"], entry["median"], entry["max"]
    text = _seconds(mid) if entry.get("n", 1) <= 1 else \
        f"{_seconds(mid)} [{_seconds(lo)}–{_seconds(hi)}]"
    return text + (" †" if entry.get("contended") else "")


def _fmt_p(p: float | None) -> str:
    """A Holm p in the Markdown table (:func:`bench.report.stats.fmt_p`); ``undefined`` for a
    test that has no statistic (a paired t-test over equal differences, said in a note under
    the table)."""
    return "undefined" if p is None else fmt_p(p)


def _fmt_ci(entry: dict[str, Any]) -> str:
    if entry.get("ci_low") is None:
        return ""
    return f"[{entry['ci_low']:.4f}, {entry['ci_high']:.4f}]"


def best_by_metric(table: dict[str, Any]) -> dict[str, set[str]]:
    """The models shown in bold per metric: every row whose mean, as printed (four decimals),
    equals the column's best (the largest; the smallest for ARP, a rank) as printed; a tie bolds
    each tied row (never broken by the models' names), and so do means that differ only beyond
    the printed digits (0.62214 and 0.62206 both print 0.6221: one bold, one not, would rank
    two equal numbers). The rows stay ordered by the unrounded means. A column that measures no
    quality (RBP's residual, a count: ``better`` is ``"none"``) has no best cell."""
    best: dict[str, set[str]] = {}
    for metric in (m for m in table["metrics"] if better(m) != "none"):
        means = [
            (r["metrics"][metric]["mean"], r["model"])
            for r in table["rows"]
            if r["metrics"].get(metric, {}).get("mean") is not None
        ]
        if means:
            top = (min if best_is_lowest(metric) else max)(v for v, _ in means)
            best[metric] = {model for v, model in means if _fmt(v) == _fmt(top)}
    return best


def _header_lines(table: dict[str, Any], stats_opts: dict[str, Any]) -> list[str]:
    seeds = ", ".join(str(s) for s in table["seeds"])
    lines = [
        f"## {md_text(shown_name(table['dataset']))} — {table['split']} split, profile "
        f"{md_code(table['profile'])}",
        "",
        f"<!-- ltrbench-table dataset={comment_json(table['dataset'])} run_id="
        f"{comment_json(table['run_id'])} run_config={comment_json(table['run_config'])} -->",
        f"Run {md_code(table['run_id'])} · config {md_code(table['run_config'])} · seeds {seeds} · "
        + (f"{table['n_queries']} {table['split']} queries"
           if table["n_queries"] or table.get("blank_queries") is not None
           else f"{table['split']} queries not known (no per_query.parquet nor labels.parquet)"),
    ]
    if table.get("unfinished"):
        lines.insert(-1, "**Unfinished run** (its manifest has no finish time): models may have "
                         "fewer seeds than the header says, or be missing.")
    if table["blank_queries"]:
        lines[-1] += (
            f" ({table['blank_queries']} blank: no relevant document; excluded from the means "
            f"under profile {md_code(table['profile'])}, see the blank-query table)"
        )
    lines.append("")
    if table.get("rows"):  # the plain verdict: the best row, and who is not told apart from it
        from bench.report.story import rows_best_first, table_verdict

        rows = rows_best_first(table["rows"], table["primary_metric"])
        lines += [md_text(table_verdict(rows, table["primary_metric"])), ""]
    return lines


def _selection_lines(sel: dict[str, Any]) -> list[str]:
    """Why this run supplies the table, and the other runs of the dataset left out."""
    line = f"Run chosen: {md_text(sel['why'])}; {sel['found']} run(s) of this dataset found"
    if sel["skipped"]:
        line += f", {len(sel['skipped'])} skipped (" + "; ".join(
            f"{md_code(s['run'])}: {md_text(s['why'])}" for s in sel["skipped"]) + ")"
    return [line + ".", ""]


def render_markdown(doc: dict[str, Any]) -> str:
    """``leaderboard.md``: per dataset, the main table, the CI table and the blank-query table."""
    so = doc["stats"]
    conf = confidence_percent(so["confidence"])
    out = ["# ltrbench leaderboard", ""]
    out.append(
        f"Metrics on the {so['split']} split: mean ± sample std over seeds. {conf}% CI: "
        f"percentile bootstrap over queries ({so['bootstrap_resamples']} resamples, seed "
        f"{so['seed']}) of the per-query values averaged over seeds. p: paired per-query tests of "
        f"{metric_header(so['primary'])} against the best row, randomization "
        f"({so['randomization_resamples']} sign flips) and t-test, Holm-corrected over the "
        "comparisons in the table. Model selection (early stopping) used the validation split "
        "only. Best value per column in bold (every row equal to it as printed)."
    )
    out.append("")
    selection = doc.get("selection") or []
    for i, table in enumerate(doc["tables"]):
        out.extend(_header_lines(table, so))
        if i < len(selection):
            out.extend(_selection_lines(selection[i]))
        out.extend(_main_table_lines(table, conf))
        out.extend(_ci_table_lines(table, conf))
        out.extend(_blank_table_lines(table))
        out.extend(_published_lines(table))
        for note in table["notes"]:
            out.append(f"Note: {md_text(note)}.")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _main_table_lines(table: dict[str, Any], conf: str) -> list[str]:
    """A table's main Markdown table: mean ± std per metric (best in bold), fit time, and for
    the primary metric its CI and the Holm-corrected p-values against the best row."""
    out: list[str] = []
    metrics = table["metrics"]
    best = best_by_metric(table)
    primary = table["primary_metric"]
    head = ["Model", *[metric_header(m) for m in metrics], "Fit s: median [range]"]
    if primary in metrics:
        head += [f"{metric_header(primary)} {conf}% CI", "p rand. (Holm)", "p t (Holm)"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for row in table["rows"]:
        cells = [md_text(row["model"])]
        for m in metrics:
            text = _fmt_ms(row["metrics"][m])
            cells.append(f"**{text}**" if row["model"] in best.get(m, ()) and text else text)
        cells.append(fmt_fit_time(row["fit_s"]))
        if primary in metrics:
            cells.append(_fmt_ci(row["metrics"][primary]))
            vs = row["vs_best"]
            if vs is None:
                cells += ["best", "best"] if row["model"] == table["best_model"] else ["", ""]
            else:
                cells += [_fmt_p(vs["p_randomization_holm"]), _fmt_p(vs["p_t_holm"])]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return out


def _ci_table_lines(table: dict[str, Any], conf: str) -> list[str]:
    """The bootstrap CI of every metric per model (nothing when no CI was computed)."""
    out: list[str] = []
    metrics = table["metrics"]
    if any(row["metrics"][m].get("ci_low") is not None for row in table["rows"] for m in metrics):
        out.append(f"{conf}% bootstrap CI over queries:")
        out.append("")
        out.append("| " + " | ".join(["Model", *[metric_header(m) for m in metrics]]) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * len(metrics)) + "|")
        for row in table["rows"]:
            cells = [md_text(row["model"]), *[_fmt_ci(row["metrics"][m]) for m in metrics]]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return out


def _blank_table_lines(table: dict[str, Any]) -> list[str]:
    """Blank queries excluded, scored 0 and scored 1 (the primary metric only when it has
    blank variants; nothing without blank queries)."""
    out: list[str] = []
    metrics = table["metrics"]
    primary = table["primary_metric"]
    blank_metrics = [m for m in metrics if any(m in r["blank"] for r in table["rows"])]
    if primary in blank_metrics:  # keep the pasted table narrow; the JSON/CSV have all
        blank_metrics = [primary]
    if table["blank_queries"] and blank_metrics:
        out.append(
            f"{table['blank_queries']} blank {table['split']} queries: NDCG with blank queries "
            f"excluded (profile {md_code(table['profile'])}), scored 0 and scored 1 "
            "(LightGBM and XGBoost score them 1):"
        )
        out.append("")
        head = ["Model"]
        for m in blank_metrics:
            h = metric_header(m)
            head += [f"{h} excl.", f"{h} blank=0", f"{h} blank=1"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for row in table["rows"]:
            cells = [md_text(row["model"])]
            for m in blank_metrics:
                b = row["blank"].get(m, {})
                cells += [
                    _fmt_ms(row["metrics"][m]),
                    _fmt_ms(b.get("blank0")),
                    _fmt_ms(b.get("blank1")),
                ]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return out


def _published_lines(table: dict[str, Any]) -> list[str]:
    """Markdown: published numbers beside ours, with how each side was selected."""
    published = table.get("published") or []
    if not published:
        return []
    first = published[0]
    metrics = list(dict.fromkeys(m for p in published for m in p["metrics"]))
    lines = [
        f"Published numbers ({first['source']}, <{first['url']}>) beside ours. Published: "
        f"{first['selection']}; computed by {first['evaluator']}. Ours: the iteration chosen on "
        f"the validation split, test evaluated once, profile {md_code(table['profile'])}; the two are "
        "not the same measurement.",
        "",
    ]
    head = ["Published row", "Our model"]
    for m in metrics:
        head += [f"{metric_header(m)} published", f"{metric_header(m)} ours"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|")
    for p in published:
        cells = [md_text(p["row"]), md_text(p["model"]) if p["model"] else "(none)"]
        for m in metrics:
            v = p["metrics"].get(m) or {}
            cells += [_fmt(v.get("published"), 6), _fmt(v.get("ours"))]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def csv_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per (dataset, model): every number of the JSON in flat columns."""
    records: list[dict[str, Any]] = []
    for table in doc["tables"]:
        for row in table["rows"]:
            rec: dict[str, Any] = {
                "dataset": table["dataset"],
                "run_id": table["run_id"],
                "run_config": table["run_config"],
                "profile": table["profile"],
                "split": table["split"],
                "model": row["model"],
                "library": row["library"],
                "n_seeds": len(row["seeds"]),
                "n_queries": table["n_queries"],
                "blank_queries": table["blank_queries"],
            }
            for m in table["metrics"]:
                e = row["metrics"][m]
                for key in ("mean", "std", "ci_low", "ci_high"):
                    rec[f"{m}_{key}"] = e.get(key)
            for col in ("fit_s", "predict_s"):
                rec[f"{col}_mean"] = row[col]["mean"]
                rec[f"{col}_std"] = row[col]["std"]
            vs = row["vs_best"] or {}
            for key in ("p_randomization", "p_randomization_holm", "p_t", "p_t_holm"):
                rec[key] = vs.get(key)
            for m, entry in row["blank"].items():
                for tag in ("blank0", "blank1"):
                    rec[f"{m}_{tag}_mean"] = (entry.get(tag) or {}).get("mean")
            records.append(rec)
    return pd.DataFrame.from_records(records)


#: The first characters that make a spreadsheet read a cell as a formula: owned by
#: :mod:`bench.data.csv_cells` (:data:`~bench.data.csv_cells.FORMULA_START`).
FORMULA_START = _FORMULA_START


def csv_cell(text: str) -> str:
    """A name from a run as a ``leaderboard.csv`` cell that no spreadsheet runs as a formula:
    a name that starts with one of :data:`FORMULA_START` gets a leading ``'`` (OWASP, "CSV
    Injection", https://owasp.org/www-community/attacks/CSV_Injection: "prepend each cell
    field with a single quote"), so ``=HYPERLINK(...)`` reads ``'=HYPERLINK(...)``. Spreadsheets
    hide that quote; other readers see it. ``leaderboard.json`` holds every name exactly as
    written. Numbers are never changed (a negative number is a number, not a name)."""
    return "'" + text if text.startswith(FORMULA_START) else text


#: The text columns of :func:`csv_frame` (every other column holds numbers).
_TEXT_COLUMNS = ("dataset", "run_id", "run_config", "profile", "split", "model", "library")


def _one_cell_per_name(column: str, names: Any) -> None:
    """Refuse two names that :func:`csv_cell` would write as one cell (``=x`` and ``'=x``):
    the CSV could not tell their rows apart (the check of ``evaluate --per-query``)."""
    if (two := same_cell((v for v in names if isinstance(v, str)), csv_cell)) is not None:
        other, name, cell = two
        raise DataError(f"{column} names {other!r} and {name!r} would both be written "
                        f"{cell!r} in leaderboard.csv (a name that starts a "
                        "spreadsheet formula gets a leading \"'\"), which could not tell "
                        "them apart: rename one (run --name) or report them apart")


#: The count columns of :func:`csv_frame`: integers (an empty cell where there is none).
_COUNT_COLUMNS = ("n_seeds", "n_queries", "blank_queries")


def number_cell(value: Any) -> str:
    """A measurement as a ``leaderboard.csv`` cell: 10 significant digits, always written as a
    float (``1.0``, ``0.0``: ``%.10g`` wrote ``1`` and ``0``, so a column of perfect recalls or
    zero fit times was read as integers in one run and as floats in the next), empty for none."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    text = f"{float(value):.10g}"
    return text + ".0" if text.lstrip("-").isdigit() else text


def render_csv(doc: dict[str, Any]) -> str:
    """``leaderboard.csv`` (10 significant digits, every measurement a float; empty cells for
    missing values; names that a spreadsheet would run as a formula neutralised by
    :func:`csv_cell`)."""
    frame = csv_frame(doc)
    for col in frame.columns:
        if col in _TEXT_COLUMNS:
            _one_cell_per_name(col, frame[col])
            frame[col] = [v if not isinstance(v, str) else csv_cell(v) for v in frame[col]]
        elif col in _COUNT_COLUMNS:
            frame[col] = frame[col].astype("Int64")
        else:
            frame[col] = [number_cell(v) for v in frame[col]]
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue()
