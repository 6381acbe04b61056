"""The tuning section of ``leaderboard.html`` (``ltrbench report --tuned DIR --html``).

One ``<section id="tuning">``: the best-so-far figure and the parameter importances embedded
as ``data:`` URIs (:mod:`bench.report.tuning_plots`), the trials table (per model: trials run,
complete, pruned and failed, the best validation score with its metric and profile, the best
trial, CPU seconds, budget and best parameters: :func:`bench.report.tuning.trials_summary`),
each tuned model against its own default row (paired, Holm-corrected:
:func:`bench.report.tuning_board.tuned_vs_default`) and the figures' notes (a model without a
complete trial, a study too small for fANOVA). :func:`bench.report.html.render_html` places the
section after the tables (its ``sections`` argument); every text from data is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.report.html import esc
from bench.report.png_embed import png_figure


def _figure(path: Path | None, alt: str) -> str:
    if path is None or not path.is_file():
        return ""
    return png_figure(path, alt)  # a link or a file that is no PNG is named, never embedded


def _n(v: Any, digits: int = 4) -> str:
    return "–" if v is None else f"{float(v):.{digits}f}"


def _trials_table(rows: Sequence[dict[str, Any]]) -> str:
    head = ("Model", "Library", "Trials", "Complete", "Pruned", "Failed", "Best (validation)",
            "Metric (profile)", "Best trial", "CPU s", "Budget", "Best parameters")
    body = []
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in sorted(r["best_params"].items()))
        cells = [r["library"], r["trials"], r["complete"], r["pruned"], r["failed"],
                 _n(r["best_value"]), f"{r['metric']} ({r['profile']})",
                 "–" if r["best_trial"] is None else r["best_trial"], f"{r['cpu_s']:.1f}",
                 r["budget"] or "–", params or "–"]
        body.append(f"<tr><th scope='row'>{esc(r['model'])}</th>"
                    + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    return ('<div class="wide"><table class="tuning"><thead><tr>'
            + "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
            + f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _versus_table(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return ""
    head = ("Model", "Default", "Tuned", "Δ (tuned − default)", "p rand. (Holm)", "p t (Holm)",
            "Queries")
    body = [f"<tr><th scope='row'>{esc(r['model'])}</th><td>{_n(r['default'])}</td>"
            f"<td>{_n(r['tuned'])}</td><td>{_n(r['delta'])}</td>"
            f"<td>{_n(r['p_randomization_holm'], 3)}</td><td>{_n(r['p_t_holm'], 3)}</td>"
            f"<td>{esc(r['n_queries'])}</td></tr>" for r in rows]
    metric = esc(rows[0]["metric"])
    return (f"<h3>Tuned against default, per model ({metric}, test split)</h3>"
            "<p>Paired per query (values averaged over seeds): randomization (sign flips) and t "
            "tests of the tuned row against the same model's default row, each Holm-corrected "
            "over the models.</p>"
            '<div class="wide"><table class="tuning"><thead><tr>'
            + "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
            + f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def tuning_section(tuned: dict[str, Any], figures: Sequence[Path] = ()) -> str:
    """The section for one entry of a tuned document's ``tuned`` list (``trials``,
    ``versus_default``, ``notes``, ``tune_dir``) and its figures (PNG files)."""
    parts = ['<section id="tuning"><h2>Tuning</h2>',
             f"<p>Tune folder <code>{esc(tuned.get('tune_dir', ''))}</code>: every model searched "
             "with its own study; validation scores by the reference evaluator; the test split "
             "was read only by the runs of the defaults and of the best parameters.</p>"]
    parts += [_figure(f, f.stem) for f in figures]
    parts.append("<h3>Trials</h3>" + _trials_table(tuned.get("trials") or []))
    parts.append(_versus_table(tuned.get("versus_default") or []))
    parts += [f'<p class="note">Note: {esc(n)}</p>' for n in tuned.get("notes") or []]
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


__all__ = ["tuning_section"]
