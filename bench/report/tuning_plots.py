"""The tuning figures (matplotlib, Agg canvas, as :mod:`bench.report.plots`).

* ``best_so_far.png``: the best validation score so far against the trials run (left) and
  against the CPU seconds spent (right), every model of the tune folder on one figure, in the
  colours and markers of :func:`bench.report.plots.model_styles`; each model's best trial is
  marked, and, when the test score of the tuned run is given, a hollow marker at the end of
  the left panel shows it (the validation score chose the parameters; the test score is what
  they give on queries the search never read). The curves of Grinsztajn, Oyallon & Varoquaux
  (NeurIPS 2022, fig. 1) and CatBoost's benchmarks read the same way: a flat curve has spent
  its budget; one still rising would gain from more trials.
* ``importances.png``: per model, the fANOVA importance of each parameter
  (:func:`bench.report.tuning.param_importances`), or the note that says why there is none.

A model with no complete trial (all pruned or failed) has no curve; the figure says so in its
legend and the caller's notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bench.report.plots import _figure, _legend_outside, _save, model_styles
from bench.report.tuning import TuneFolder

#: The most parameters drawn per model in the importance figure (the rest are small).
SHOWN_PARAMS = 10


def _metric_label(folder: TuneFolder) -> str:
    pairs = sorted({(str(m), str(p)) for m, p in
                    zip(folder.trials["metric"], folder.trials["profile"], strict=True)})
    return "; ".join(f"{m} ({p})" for m, p in pairs)


def best_so_far_figure(folder: TuneFolder,
                       test_values: Mapping[str, float] | None = None) -> tuple[Any, list[str]]:
    """The best-so-far figure (module docstring) and its notes (models without a curve)."""
    fig = _figure(11.0, 4.2)
    left, right = fig.subplots(1, 2, sharey=True)
    styles = model_styles(folder.models)
    notes: list[str] = []
    for model in folder.models:
        sub = folder.of(model)
        st = styles[model]
        best = sub["best_so_far"].to_numpy(dtype=np.float64)
        count = np.arange(1, len(sub) + 1, dtype=np.float64)
        cpu = sub["cum_cpu_s"].to_numpy(dtype=np.float64)
        label = f"{model} ({len(sub)} trials)"
        if np.isnan(best).all():
            notes.append(f"{model}: no complete trial in {len(sub)} (all pruned or failed): "
                         "no curve")
            left.plot([], [], color=st["color"], marker=st["marker"],
                      label=f"{model}: no complete trial")
            continue
        for ax, x in ((left, count), (right, cpu)):
            ax.step(x, best, where="post", color=st["color"], lw=1.4)
            at = int(np.nanargmax(sub["value"].where(sub["state"] == "COMPLETE").to_numpy(
                dtype=np.float64)))
            ax.plot([x[at]], [best[at]], linestyle="none", marker=st["marker"],
                    color=st["color"], label=label if ax is left else None)
        if test_values and model in test_values and np.isfinite(test_values[model]):
            left.plot([count[-1]], [test_values[model]], linestyle="none", marker=st["marker"],
                      color=st["color"], markerfacecolor="none", markersize=9,
                      label=f"{model}: test, tuned run")
    metric = _metric_label(folder)
    left.set(xlabel="trials run", ylabel=f"best validation {metric} so far")
    right.set(xlabel="CPU seconds spent (cumulative)")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    left.set_title("against trials", fontsize=9)
    right.set_title("against CPU seconds", fontsize=9)
    handles, labels = left.get_legend_handles_labels()
    if handles:
        _legend_outside(right, len(handles), handles=handles, labels=labels)
    return fig, notes


def plot_best_so_far(folder: TuneFolder, path: str | Path,
                     test_values: Mapping[str, float] | None = None) -> tuple[Path, list[str]]:
    """Write ``best_so_far.png`` (see :func:`best_so_far_figure`); returns it and its notes.
    Names are drawn as written (``$`` is not mathtext, as :func:`bench.report.plots.plot_files`)."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        fig, notes = best_so_far_figure(folder, test_values)
        return _save(fig, Path(path)), notes


def importance_figure(importances: Mapping[str, dict[str, float] | str]) -> Any:
    """One panel per model: horizontal bars of its :data:`SHOWN_PARAMS` most important
    parameters, or its note (too few complete trials, no study) written in the panel."""
    models = list(importances)
    cols = min(3, max(1, len(models)))
    rows = (len(models) + cols - 1) // cols
    fig = _figure(4.2 * cols, 3.2 * rows)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    styles = model_styles(models)
    for ax, model in zip(axes, models, strict=False):
        ax.set_title(model, fontsize=9)
        got = importances[model]
        if isinstance(got, str):
            ax.text(0.5, 0.5, _wrap(got), ha="center", va="center", fontsize=8,
                    transform=ax.transAxes)
            ax.set_axis_off()
            continue
        items = sorted(got.items(), key=lambda kv: -kv[1])[:SHOWN_PARAMS]
        names = [k for k, _ in items][::-1]
        ax.barh(names, [v for _, v in items][::-1], color=styles[model]["color"])
        ax.set_xlabel("fANOVA importance (sums to 1)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlim(0, 1)
    for ax in axes[len(models):]:
        ax.set_axis_off()
    fig.tight_layout()
    return fig


def _wrap(text: str, width: int = 34) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "\n".join([*lines, line])


def plot_importances(importances: Mapping[str, dict[str, float] | str],
                     path: str | Path) -> Path:
    """Write ``importances.png`` (see :func:`importance_figure`; names drawn as written)."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        return _save(importance_figure(importances), Path(path))


__all__ = ["SHOWN_PARAMS", "best_so_far_figure", "importance_figure", "plot_best_so_far",
           "plot_importances"]
