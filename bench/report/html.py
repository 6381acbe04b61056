"""``leaderboard.html``: the leaderboard document of :mod:`bench.report.build` as one
self-contained HTML file (issue 21 item 5).

Nothing in the file reaches the network: the styles and a small sorter script are inline, the
figures are PNG files embedded as ``data:`` URIs, the per-query drill-down is inline SVG, and a
``Content-Security-Policy`` meta tag (``default-src 'none'``) makes a browser refuse any fetch
anyway. Per table (dataset), in order:

* the verdict (:func:`bench.report.story.table_verdict`) and which run was used and why
  (``doc["selection"]``);
* the leaderboard: mean ± sample std over seeds per metric (the 95% bootstrap interval in the
  cell's tooltip), the primary metric's interval, the Holm-corrected paired p-values against the
  best row, the fit time (``median [min–max]``, ``†`` for a contended fit, explained below the
  table); every column sorts on a click (or Enter / Space: the headers are buttons), numerically
  on the full-precision value in the cell's ``data-v``;
* the cross-check per library with its reasons (``<report>/<dataset>/crosscheck.json``, the file
  :func:`bench.crosscheck.run.write_crosscheck` writes beside the plots);
* a per-query drill-down of two models (default: the best row and the runner-up): an SVG
  scatter of their per-query values of the primary metric averaged over seeds
  (:func:`bench.report.build.per_query_matrix` on the run's ``per_query.parquet``), one point
  per query with its id in a ``<title>`` tooltip, the diagonal ``y = x``;
* the table's plots (``<report>/<dataset>/*.png``) and the run's ``manifest.json`` in a collapsed
  ``<details>``;

then the fold tables (the JSON documents :func:`bench.benchmark.folds.run_folds` writes as
``<out>/folds/*.json``), when given. Every text that comes from data (dataset and model names,
ids, notes, paths) is HTML-escaped (:func:`html.escape` with ``quote=True``).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import write_text
from bench.data.look_alike import shown_name
from bench.errors import LtrbenchError
from bench.metrics.families import metric_header
from bench.report.build import filter_dataset
from bench.report.folds import folds_counted, read_fold_docs
from bench.report.png_embed import png_figure
from bench.report.render import CONTROL, best_by_metric, fmt_fit_time
from bench.report.seed_values import per_query_matrix
from bench.report.stats import confidence_percent, fmt_p
from bench.report.story import rows_best_first, table_verdict
from bench.runners.resources import CONTENTION_THRESHOLD
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'")

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;
max-width:1400px;padding:0 1em;color:#1b1b1b;background:#fff}h1{font-size:1.6em}
h2{border-bottom:2px solid #2b5797;padding-bottom:.2em;margin-top:2em}h3{font-size:1.1em;
margin-top:1.4em}table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccd;padding:.2em .4em;text-align:right;white-space:nowrap;font-size:13px}
.sd{color:#666;font-size:11px}th:first-child,td:first-child{text-align:left}
thead th{background:#eef2f8}th button{font:inherit;font-weight:600;background:none;border:0;
cursor:pointer;padding:0}th button:focus{outline:2px solid #2b5797}
th[aria-sort=ascending] button::after{content:" \\25B2"}
th[aria-sort=descending] button::after{content:" \\25BC"}td.best{font-weight:700}
.verdict{font-size:1.1em;background:#f4f8ee;padding:.5em;border-left:4px solid #5a8f29}
.note{color:#555}.warn{color:#a33}svg .pt{fill:#2b5797;fill-opacity:.55}svg .pt:hover{fill:#d33;
fill-opacity:1}svg .axis{stroke:#333}svg .diag{stroke:#999;stroke-dasharray:4 3}img{max-width:100%;
border:1px solid #dde;margin:.4em 0}.wide{overflow-x:auto;max-width:100%}pre{background:#f6f6f6;
padding:.6em;overflow:auto;max-height:40em}
"""

_SCRIPT = """
(function(){function key(td){var v=td.getAttribute('data-v');if(v===null){return td.textContent;}
if(v===''){return null;}var x=parseFloat(v);return isNaN(x)?null:x;}
function sortBy(t,i,th){var asc=th.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(t.tHead.rows[0].cells,function(c){c.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');var body=t.tBodies[0];
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);if(x===null&&y===null){return 0;}
if(x===null){return 1;}if(y===null){return -1;}
var d=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));
return asc?d:-d;});rows.forEach(function(r){body.appendChild(r);});}
Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){
Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){
var b=th.querySelector('button');if(b){b.addEventListener('click',function(){sortBy(t,i,th);});}});
t.setAttribute('data-sorter','ready');});})();
"""


def esc(text: object) -> str:
    """``text`` as HTML text or a quoted attribute value (``& < > " '`` as entities; control
    characters and bidirectional controls as a space, as in Markdown and LaTeX)."""
    return html.escape(CONTROL.sub(" ", str(text)), quote=True)


def _num(value: Any, digits: int = 4) -> str:
    """A number with ``digits`` decimals; ``–`` for a missing one (``None``, NaN)."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    return "–" if missing else f"{float(value):.{digits}f}"


def _p(value: Any) -> str:
    """A p-value as the Markdown leaderboard prints it (``<0.001`` below 0.001)."""
    return "–" if value is None else fmt_p(value)


def _td(text: str, sort: Any = None, *, cls: str = "", title: str = "") -> str:
    """A numeric cell: ``text`` shown (already escaped), ``sort`` the value it sorts by."""
    key = "" if sort is None or (isinstance(sort, float) and math.isnan(sort)) else repr(
        float(sort))
    attrs = f' data-v="{key}"' + (f' class="{cls}"' if cls else "") + (
        f' title="{esc(title)}"' if title else "")
    return f"<td{attrs}>{text}</td>"


def _head(names: Sequence[str]) -> str:
    """A sortable header row: each header a button (keyboard accessible)."""
    cells = "".join(f'<th scope="col"><button type="button">{esc(n)}</button></th>'
                    for n in names)
    return f"<thead><tr>{cells}</tr></thead>"


def run_path(table: dict[str, Any], base: Path) -> Path:
    """The table's run directory: ``run_dir`` relative to ``base`` (the folder of
    ``leaderboard.json``) unless absolute (:func:`bench.report.build.build_leaderboard`)."""
    path = Path(str(table["run_dir"]))
    return path if path.is_absolute() else base / path


def table_folder(table: dict[str, Any], base: Path) -> Path:
    """The folder of a table's plots and cross-check: ``<base>/<slug>@<run>`` when a report
    with two tables of one slug made one (:func:`bench.report.leaderboard.plot_folders`), else
    ``<base>/<slug>``."""
    slug = dataset_slug(str(table["dataset"]))
    run = "".join(c if c.isalnum() or c in "._-" else "-" for c in str(table["run_id"]))
    apart = base / f"{slug}@{run.strip('-.') or 'run'}"
    return apart if apart.is_dir() else base / slug


def _ordered_rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows best primary-metric mean first (the order the verdict reads)."""
    primary = table["primary_metric"]
    return rows_best_first(table["rows"], primary)


def _metric_td(row: dict[str, Any], m: str, best: dict[str, set[str]], conf: str) -> str:
    """A metric cell: mean ± std over seeds (bold when the column's best), its interval in the
    tooltip, sorting on the mean."""
    c = row["metrics"].get(m) or {}
    text = _num(c.get("mean")) + ("" if c.get("std") is None else
                                  f' <span class="sd">± {_num(c["std"])}</span>')
    title = (f"{conf}% CI [{_num(c['ci_low'])}, {_num(c['ci_high'])}] over "
             f"{c.get('n_queries')} queries" if c.get("ci_low") is not None else "")
    return _td(text, c.get("mean"), title=title,
               cls="best" if row["model"] in best.get(m, ()) else "")


def _board_row(table: dict[str, Any], row: dict[str, Any], best: dict[str, set[str]],
               conf: str) -> str:
    """One leaderboard row: model, library, the primary metric with its interval and p-values,
    the fit time, then the other metrics (the column order of :func:`leaderboard_html`)."""
    metrics, primary = list(table["metrics"]), table["primary_metric"]
    cells = [f'<th scope="row">{esc(row["model"])}</th>', f"<td>{esc(row['library'])}</td>"]
    if primary in metrics:
        c = row["metrics"][primary]
        ci = f"[{_num(c['ci_low'])}, {_num(c['ci_high'])}]" if c.get("ci_low") is not None \
            else "–"
        vs = row.get("vs_best") or {}
        is_best = row.get("vs_best") is None and row["model"] == table["best_model"]
        cells += [_metric_td(row, primary, best, conf), _td(ci, c.get("ci_low")),
                  _td("best" if is_best else _p(vs.get("p_randomization_holm")),
                      2.0 if is_best else vs.get("p_randomization_holm")),
                  _td("best" if is_best else _p(vs.get("p_t_holm")),
                      2.0 if is_best else vs.get("p_t_holm"))]
    fit = row.get("fit_s") or {}
    cells.append(_td(esc(fmt_fit_time(fit) or "–"), fit.get("median", fit.get("mean"))))
    cells += [_metric_td(row, m, best, conf) for m in metrics if m != primary]
    return "<tr>" + "".join(cells) + "</tr>"


def leaderboard_html(table: dict[str, Any], conf: str) -> str:
    """The sortable leaderboard of one table (the primary metric, its interval and p-values and
    the fit time first, then the other metrics), with the † and timing explanation below it."""
    metrics, primary = list(table["metrics"]), table["primary_metric"]
    best = best_by_metric(table)
    head = ["Model", "Library"]
    if primary in metrics:
        head += [metric_header(primary), f"{metric_header(primary)} {conf}% CI",
                 "p rand. (Holm)", "p t (Holm)"]
    head += ["Fit s: median [range]", *(metric_header(m) for m in metrics if m != primary)]
    body = [_board_row(table, row, best, conf) for row in table["rows"]]
    out = [f'<div class="wide"><table class="sortable leaderboard">{_head(head)}<tbody>'
           f'{"".join(body)}</tbody></table></div>']
    modes = sorted({str(r["fit_s"].get("timing")) for r in table["rows"]
                    if (r.get("fit_s") or {}).get("timing")})
    timing = (f"Fit times measured {esc(' / '.join(modes))}" if modes
              else "Fit times recorded without the machine's load (contention unknown)")
    out.append(f'<p class="note">{timing}, in seconds: median over seeds × repeats, '
               "[min–max] when more than one. † a fit ran while other processes used more "
               f"than {CONTENTION_THRESHOLD:.0%} of the machine's CPU: its time is not "
               "comparable; rerun on an idle machine or with <code>--timing isolated</code>."
               "</p>")
    out += [f'<p class="note">Note: {esc(n)}.</p>' for n in table.get("notes") or []]
    return "\n".join(out)


def _selection_html(sel: dict[str, Any] | None) -> str:
    """Which run supplies the table, why, and the other runs of the dataset left out."""
    if not sel:
        return '<p class="note">No record of how this run was chosen.</p>'
    text = (f"Run chosen: <code>{esc(sel.get('run'))}</code>, {esc(sel.get('why'))}; "
            f"{esc(sel.get('found'))} run(s) of this dataset found")
    skipped = sel.get("skipped") or []
    if skipped:
        text += f", {len(skipped)} skipped: " + "; ".join(
            f"<code>{esc(s.get('run'))}</code> ({esc(s.get('why'))})" for s in skipped)
    return f'<p class="selection">{text}.</p>'


def crosscheck_html(table: dict[str, Any], folders: Sequence[Path]) -> str:
    """The cross-check per library (built-in metric vs the reference evaluator, and the gap to
    the default profile split into reasons) from ``crosscheck.json`` in the first of
    ``folders`` that has one of the table's run (else the first that has one)."""
    from bench.data.jsonio import read_json_object
    from bench.errors import LtrbenchError

    docs: list[dict[str, Any]] = []
    for path in (f / "crosscheck.json" for f in dict.fromkeys(folders)):
        try:  # the one strict reader: a NaN gap or an "ok" twice is no check shown as OK
            docs += [read_json_object(path, "a cross-check as 'ltrbench crosscheck' writes "
                                      "it")] if path.is_file() else []
        except (LtrbenchError, OSError) as exc:
            return f'<p class="warn">{esc(path.name)} unreadable: {esc(exc)}</p>'
    if not docs:
        return ('<p class="note">No cross-check for this table (no <code>crosscheck.json</code> '
                f"in <code>{esc(folders[0].name)}/</code>): run <code>ltrbench crosscheck</code> "
                "on the run to check each library's built-in metric.</p>")
    cc = next((d for d in docs if isinstance(d, dict) and d.get("run_id") == table["run_id"]),
              docs[0])
    try:
        checks, cases = list(cc.get("checks") or []), list(cc.get("cases") or [])
    except (AttributeError, TypeError) as exc:
        return f'<p class="warn">crosscheck.json unreadable: {esc(exc)}</p>'
    out = [f"<p>Status: <strong>{'OK' if cc.get('ok') else 'FAILED'}</strong> "
           f"({len(checks)} checks of {esc(cc.get('metric', ''))}, {len(cases)} "
           f"reconciliations to profile <code>{esc(cc.get('default_profile', ''))}</code>).</p>"]
    if cc.get("run_id") not in (None, table["run_id"]):
        out.append(f'<p class="warn">This cross-check is of run <code>{esc(cc["run_id"])}</code>'
                   f", not of the table's run <code>{esc(table['run_id'])}</code>.</p>")
    head = ["Library", "Checks", "Agreement", "max |diff|", "Cases explained",
            "Mean gap", "Reasons of the gap (mean contribution)"]
    rows = []
    for lib in sorted({str(c.get("library")) for c in [*checks, *cases]}):
        ch = [c for c in checks if str(c.get("library")) == lib]
        ca = [c for c in cases if str(c.get("library")) == lib]
        agree = ", ".join(f"{a} {sum(1 for c in ch if c.get('agreement') == a)}"
                          for a in sorted({str(c.get("agreement")) for c in ch}))
        diffs = [float(c["abs_diff"]) for c in ch if c.get("abs_diff") is not None]
        gaps = [float(c["gap"]) for c in ca if c.get("gap") is not None]
        reasons = []
        for name in sorted({k for c in ca for k in (c.get("reasons") or {})}):
            vals = [float(c["reasons"][name]) for c in ca
                    if (c.get("reasons") or {}).get(name) is not None]
            hits = sum(int((c.get("queries_affected") or {}).get(name) or 0) for c in ca)
            if vals and (any(vals) or hits):
                reasons.append(f"{name} {np.mean(vals):+.2e} ({hits} queries)")
        rows.append(
            f"<tr><th scope='row'>{esc(lib)}</th>{_td(str(len(ch)), len(ch))}"
            f"<td>{esc(agree or '–')}</td>"
            + _td(f"{max(diffs):.1e}" if diffs else "–", max(diffs) if diffs else None)
            + _td(f"{sum(1 for c in ca if c.get('explained'))}/{len(ca)}", len(ca))
            + _td(f"{np.mean(gaps):+.2e}" if gaps else "–", np.mean(gaps) if gaps else None)
            + f"<td>{esc(' · '.join(reasons) or 'none')}</td></tr>")
    out.append(f'<table class="sortable crosscheck">{_head(head)}<tbody>{"".join(rows)}'
               "</tbody></table>")
    out += [f'<p class="warn">{esc(e)}</p>' for e in cc.get("errors") or []]
    out += [f'<p class="note">{esc(n)}</p>' for n in cc.get("notes") or []]
    return "\n".join(out)


def drill_pair(table: dict[str, Any], pair: tuple[str, str] | None) -> tuple[str, str] | None:
    """The two models of the drill-down: ``pair`` when both are rows of the table, else the
    best row and the runner-up (``None`` with fewer than two rows)."""
    names = [r["model"] for r in _ordered_rows(table)]
    if pair is not None and pair[0] in names and pair[1] in names and pair[0] != pair[1]:
        return pair
    return (names[0], names[1]) if len(names) >= 2 else None


def scatter_svg(qids: Sequence[Any], a: np.ndarray, b: np.ndarray, names: tuple[str, str],
                metric: str, size: int = 420) -> str:
    """An SVG scatter of per-query values (x: model ``a``, y: model ``b``), the diagonal
    ``y = x``, and one ``<circle>`` per query with a ``<title>`` naming the query and both
    values; queries without a value for either model are left out (the caller counts them)."""
    lo = float(min(np.min(a), np.min(b), 0.0)) if len(a) else 0.0
    hi = float(max(np.max(a), np.max(b), 1.0 if lo >= 0 else lo + 1)) if len(a) else 1.0
    pad, span = 50, size - 70

    def x(v: float) -> float:
        return pad + (v - lo) / (hi - lo) * span

    def y(v: float) -> float:
        return size - pad - (v - lo) / (hi - lo) * span

    label = f"{metric_header(metric)} per query"
    parts = [f'<svg class="scatter" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
             f'role="img" aria-label="{esc(label)}: {esc(names[0])} vs {esc(names[1])}">',
             f'<line class="axis" x1="{pad}" y1="{y(lo):.1f}" x2="{x(hi):.1f}" y2="{y(lo):.1f}"/>',
             f'<line class="axis" x1="{pad}" y1="{y(lo):.1f}" x2="{pad}" y2="{y(hi):.1f}"/>',
             f'<line class="diag" x1="{x(lo):.1f}" y1="{y(lo):.1f}" x2="{x(hi):.1f}" '
             f'y2="{y(hi):.1f}"/>']
    for v, anchor in ((lo, "start"), (hi, "end")):
        parts.append(f'<text x="{x(v):.1f}" y="{size - pad + 16}" font-size="11" '
                     f'text-anchor="{anchor}">{v:.2f}</text>')
        parts.append(f'<text x="{pad - 6}" y="{y(v):.1f}" font-size="11" '
                     f'text-anchor="end">{v:.2f}</text>')
    parts.append(f'<text x="{pad + span / 2:.0f}" y="{size - 12}" font-size="12" '
                 f'text-anchor="middle">{esc(names[0])}</text>')
    parts.append(f'<text x="14" y="{size / 2:.0f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {size / 2:.0f})">{esc(names[1])}</text>')
    for q, va, vb in zip(qids, a, b, strict=True):
        parts.append(f'<circle class="pt" data-qid="{esc(q)}" cx="{x(float(va)):.1f}" '
                     f'cy="{y(float(vb)):.1f}" r="3.5"><title>query {esc(q)}: '
                     f"{esc(names[0])} {float(va):.4f}, {esc(names[1])} {float(vb):.4f}"
                     "</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def drilldown_html(table: dict[str, Any], run: RunDir | None,
                   pair: tuple[str, str] | None, metric: str | None = None,
                   values: pd.DataFrame | None = None) -> str:
    """The per-query drill-down of two models (:func:`drill_pair`) on ``metric`` (default the
    table's primary metric): counts of queries each wins, and :func:`scatter_svg`. ``values``:
    per-query values in ``per_query.parquet``'s columns instead of the run's (a table that
    joins two runs, :mod:`bench.report.tuning_board`)."""
    chosen = drill_pair(table, pair)
    metric = metric or table["primary_metric"]
    if chosen is None:
        return '<p class="note">One model only: no per-query comparison.</p>'
    if run is None and values is None:
        return '<p class="note">The run directory is not here: no per-query values.</p>'
    try:
        pq = filter_dataset(values if values is not None else
                            run.table_or_empty("per_query.parquet"),  # type: ignore[union-attr]
                            str(table["dataset"]))
        pq = pq[pq["split"].astype(str) == table["split"]] if len(pq) else pq
        pq = pq.assign(model=pq["model"].astype(str), metric=pq["metric"].astype(str))
        mat, qids = per_query_matrix(pq, metric, list(chosen))
    except (LtrbenchError, OSError, KeyError, ValueError) as exc:
        return f'<p class="warn">per_query.parquet unreadable: {esc(exc)}</p>'
    keep = ~np.isnan(mat).any(axis=0) if mat.size else np.zeros(0, dtype=bool)
    if not keep.any():
        return (f'<p class="note">No per-query {esc(metric)} values for {esc(chosen[0])} and '
                f"{esc(chosen[1])} in the run.</p>")
    a, b, q = mat[0][keep], mat[1][keep], [qids[i] for i in np.flatnonzero(keep)]
    why = "chosen" if pair is not None and chosen == pair else "the best row and the runner-up"
    n_a, n_b = int((a > b).sum()), int((b > a).sum())
    text = (f"<p>Per-query {esc(metric_header(metric))} ({esc(table['split'])} split, "
            f"averaged over seeds) of <strong>{esc(chosen[0])}</strong> (x) and "
            f"<strong>{esc(chosen[1])}</strong> (y), {why}: {len(q)} queries; "
            f"{esc(chosen[0])} higher on {n_a}, {esc(chosen[1])} higher on {n_b}, equal on "
            f"{len(q) - n_a - n_b}" + (f"; {int((~keep).sum())} without a value (blank) "
                                       "left out" if (~keep).any() else "")
            + ". Hover a point for its query id.</p>")
    return text + scatter_svg(q, a, b, chosen, metric)


def figures_html(folder: Path) -> str:
    """The PNG figures of ``folder`` embedded as ``data:`` URIs (nothing when there are none)."""
    files = sorted(folder.glob("*.png")) if folder.is_dir() else []
    out = []
    for f in files:  # a link or a file that is no PNG is named, never embedded
        out.append(png_figure(f, f.stem))
    return "\n".join(out) or '<p class="note">No plots in the report folder for this table.</p>'


def manifest_html(run: RunDir | None) -> str:
    """The run's ``manifest.json``, pretty-printed, in a collapsed ``<details>``."""
    if run is None:
        return ""
    try:
        text = json.dumps(run.manifest, indent=2, ensure_ascii=False, default=str)
    except (LtrbenchError, OSError, ValueError) as exc:
        text = f"manifest unreadable: {exc}"
    return (f"<details><summary>manifest.json of run <code>{esc(run.run_id)}</code></summary>"
            f"<pre>{esc(text)}</pre></details>")


def fold_html(doc: dict[str, Any]) -> str:
    """The fold tables of one fold document (``<out>/folds/*.json``): per model each fold's
    value, mean ± std over folds, the pooled mean with its 95% interval and the
    Holm-corrected p against the best over all test queries of the folds."""
    out = [f"<h3>{esc(shown_name(doc.get('dataset', '')))}: folds "
           f"{esc(', '.join(str(f) for f in doc.get('folds') or []))}</h3>",
           *(f'<p class="note">{esc(n)}</p>' for n in doc.get("notes") or [])]
    for t in doc.get("tables") or []:
        folds = [str(f) for f in t.get("folds") or []]
        head = ["Model", *folds, "mean ± std (folds)",
                f"pooled ({t.get('n_queries')} queries)", "95% CI", "p (Holm) vs best"]
        rows = []
        for r in t.get("rows") or []:
            ci = list(r.get("ci") or [None, None])
            p = r.get("p_holm_vs_best")
            rows.append(
                f"<tr><th scope='row'>{esc(r.get('model'))}</th>"
                + "".join(_td(_num(v), v) for v in r.get("per_fold") or [])
                + _td(f"{_num(r.get('mean'))} ± {_num(r.get('std'))}"
                      f"{folds_counted(r.get('per_fold') or [])}", r.get("mean"))
                + _td(_num(r.get("pooled_mean")), r.get("pooled_mean"))
                + _td(f"[{_num(ci[0])}, {_num(ci[1])}]", ci[0])
                + _td("best" if p is None else _p(p), 2.0 if p is None else p) + "</tr>")
        out.append(f"<p>{esc(metric_header(str(t.get('metric', ''))))} on the test folds, "
                   f"profile <code>{esc(t.get('profile', ''))}</code>.</p>")
        out.append(f'<div class="wide"><table class="sortable folds">{_head(head)}<tbody>'
                   f'{"".join(rows)}</tbody></table></div>')
    return "\n".join(out)


def table_html(table: dict[str, Any], i: int, *, base: Path, conf: str,
               selection: dict[str, Any] | None, pair: tuple[str, str] | None,
               drill_values: pd.DataFrame | None = None) -> str:
    """Everything the report shows of one table (module docstring), as one ``<section>``."""
    path = run_path(table, base)
    run = RunDir(path) if path.is_dir() else None
    folder = table_folder(table, base)
    rows = _ordered_rows(table)
    seeds = ", ".join(str(s) for s in table["seeds"])
    blank = table.get("blank_queries") or 0
    parts = [f'<section id="t{i}"><h2>{esc(shown_name(table["dataset"]))}</h2>',
             f"<p>{esc(table['split'])} split, profile <code>{esc(table['profile'])}</code>, "
             f"seeds {esc(seeds)}, {esc(table['n_queries'])} queries"
             + (f" ({esc(blank)} blank: no relevant document)" if blank else "") + ".</p>"]
    if table.get("unfinished"):
        parts.append('<p class="warn">Unfinished run: models may have fewer seeds.</p>')
    if rows:
        said = table_verdict(rows, table["primary_metric"])
        parts.append(f'<p class="verdict">{esc(said)}</p>')
    parts += [_selection_html(selection), leaderboard_html(table, conf),
              "<h3>Cross-check per library</h3>", crosscheck_html(
                  table, [folder, base / dataset_slug(str(table["dataset"]))]),
              "<h3>Per-query drill-down</h3>", drilldown_html(table, run, pair,
                                                              values=drill_values),
              "<h3>Plots</h3>", figures_html(folder), "<h3>Run</h3>",
              f"<p>Run <code>{esc(table['run_id'])}</code>, finished "
              f"{esc(table.get('run_timestamp', ''))}, directory <code>{esc(table['run_dir'])}"
              "</code>" + ("" if run else " (not found here)") + ".</p>",
              manifest_html(run), "</section>"]
    return "\n".join(p for p in parts if p)


def render_html(doc: dict[str, Any], *, base: Path, pair: tuple[str, str] | None = None,
                folds: Sequence[dict[str, Any]] = (), title: str = "ltrbench leaderboard",
                sections: Sequence[tuple[str, str]] = (),
                drill_values: pd.DataFrame | None = None) -> str:
    """The leaderboard document ``doc`` (:func:`bench.report.build.build_leaderboard`, or
    ``leaderboard.json`` read back) as one self-contained HTML page (module docstring).

    ``base``: the folder of ``leaderboard.json`` (run directories, plots and cross-checks are
    found from it); ``pair``: the two models of the per-query drill-down (default, and for a
    table without both: the best row and the runner-up); ``folds``: fold documents
    (``<out>/folds/*.json``, :func:`read_fold_docs`); ``sections``: ``(id, html)`` placed
    after the tables (the tuning section, :mod:`bench.report.html_tuning`); ``drill_values``:
    the drill-down's per-query values when the table joins two runs (:func:`drilldown_html`)."""
    so = doc.get("stats") or {}
    conf = confidence_percent(so.get("confidence", 0.95))
    tables = list(doc.get("tables") or [])
    selection = list(doc.get("selection") or [])
    names = [t["dataset"] for t in tables]  # --all: a dataset's tables told apart by run
    toc = "".join(f'<li><a href="#t{i}">{esc(shown_name(t["dataset"]))}</a>'
                  + (f" <code>{esc(t['run_id'])}</code>" if names.count(t["dataset"]) > 1 else "")
                  + "</li>" for i, t in enumerate(tables))
    if folds:
        toc += '<li><a href="#folds">Folds</a></li>'
    intro = (f"Metrics on the {esc(so.get('split', 'test'))} split: mean ± sample std over "
             f"seeds (hover a cell for its {conf}% CI: percentile bootstrap over queries, "
             f"{esc(so.get('bootstrap_resamples', ''))} resamples, of the per-query values "
             f"averaged over seeds). p: {esc(so.get('tests', 'paired tests vs the best row'))}. "
             "Best value per column in bold (every row equal to it as printed); click a column "
             "header to sort.")
    body = [table_html(t, i, base=base, conf=conf, pair=pair, drill_values=drill_values,
                       selection=selection[i] if i < len(selection) else None)
            for i, t in enumerate(tables)]
    if folds:
        body.append('<section id="folds"><h2>Folds</h2>'
                    + "\n".join(fold_html(d) for d in folds) + "</section>")
    body += [text for _, text in sections]
    toc += "".join(f'<li><a href="#{esc(i)}">{esc(i.capitalize())}</a></li>' for i, _ in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"note\">{esc(doc.get('generated_by', ''))}</p>"
            f"<p>{intro}</p><nav><ul>{toc}</ul></nav>\n" + "\n".join(body)
            + f"\n<script>{_SCRIPT}</script></body></html>\n")


def write_html(doc: dict[str, Any], out: Path, *, base: Path | None = None,
               pair: tuple[str, str] | None = None, folds: Sequence[dict[str, Any]] = (),
               sections: Sequence[tuple[str, str]] = ()) -> Path:
    """Write :func:`render_html` of ``doc`` to ``out`` atomically
    (:func:`bench.data.atomic.write_text`); ``base`` defaults to ``out``'s folder."""
    return write_text(out, render_html(doc, base=base if base is not None else out.parent,
                                       pair=pair, folds=folds, sections=sections))


__all__ = ["esc", "read_fold_docs", "render_html", "write_html"]
