"""Leaderboard plots (matplotlib, Agg backend; PNG in ``results/<dataset>/``).

* ``ndcg_at_k.png``: NDCG@k against k per model (test split, mean over seeds, error bars = std);
* ``learning_curves.png``: the library's own validation metric against the boosting iteration
  (``evallog.csv``, mean over seeds), the chosen (early-stopping) iteration marked;
* ``quality_vs_fit_time.png``: the primary metric against fit time (log scale), error bars = std
  over seeds on both axes.

Figures are built with :class:`matplotlib.figure.Figure` and the Agg canvas directly, so the
global pyplot state and the user's backend are never touched.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.atomic import atomic_path
from bench.metrics.families import PRIMARY_METRIC, cutoff_of, is_family
from bench.runs.reader import RunDir


def _figure(width: float = 6.4, height: float = 4.2) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=120)
    FigureCanvasAgg(fig)
    return fig


class MissingGlyphWarning(UserWarning):
    """A plot draws names holding characters its font lacks (as empty boxes)."""


_GLYPH = re.compile(r"Glyph \d+ \((.+?)\) missing from font")


def _char(text: str) -> str:
    """A character as matplotlib names it (``\\N{KATAKANA LETTER DE}``, or the character),
    printable (a control character as its escape)."""
    if text.startswith("\\N{") and text.endswith("}"):
        with contextlib.suppress(KeyError):
            text = unicodedata.lookup(text[3:-1])
    return text if text.isprintable() else ascii(text)[1:-1]


def _save(fig: Any, path: Path) -> Path:
    """Write ``fig`` as PNG; matplotlib's warning per missing glyph (one per character, per
    draw: fifteen lines for one name in CJK) becomes one warning naming the file, the
    characters and what to do."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", bbox_inches="tight")
    missing: list[str] = []
    for w in caught:
        hit = _GLYPH.search(str(w.message))
        if hit is None:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif _char(hit.group(1)) not in missing:
            missing.append(_char(hit.group(1)))
    if missing:
        chars = " ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        shown = path.parent.parent / path.name if path.parent.name.startswith(".set-") else path
        warnings.warn(f"{shown}: the plot's font has no glyph for {len(missing)} character(s) "
                      f"of the names ({chars}): drawn as empty boxes; the tables show them. "
                      "Set matplotlib's font.family (matplotlibrc) to a font that has them",
                      MissingGlyphWarning, stacklevel=2)
    return path


def _dataset(table: dict[str, Any]) -> str:
    """The dataset's name in a title as the tables head it (``toy`` + U+034F escaped beside it,
    :func:`bench.report.select.shown_name`), control characters escaped."""
    from bench.data.look_alike import shown_name

    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in shown_name(table["dataset"]))


def _k_of(metric: str) -> int | None:
    """The cutoff of an ``ndcg@k`` name (None for any other metric)."""
    return cutoff_of(metric) if is_family(metric, "ndcg") else None


#: Twenty colours that read apart: matplotlib's ``tab10`` (strong tones) then the pale tone of
#: each ``tab20`` hue, and seven marker shapes. 20 and 7 share no factor, so the (colour,
#: marker) pair of model ``i`` (colour ``i mod 20``, marker ``i mod 7``) repeats only after 140
#: models, and no two of the first twenty models share a colour.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _palette() -> list[Any]:
    from matplotlib import colormaps

    strong = [colormaps["tab10"](i) for i in range(10)]
    pale = [colormaps["tab20"](i) for i in range(1, 20, 2)]
    return strong + pale


def model_styles(models: list[str]) -> dict[str, dict[str, Any]]:
    """``{model: {"color": ..., "marker": ...}}`` for the models in table order, the same in
    every plot of a table (see :data:`MARKERS` for why no two models look alike)."""
    colours = _palette()
    return {m: {"color": colours[i % len(colours)], "marker": MARKERS[i % len(MARKERS)]}
            for i, m in enumerate(models)}


def _styles(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return model_styles([str(r["model"]) for r in table["rows"]])


def _legend_outside(ax: Any, n: int, **kwargs: Any) -> Any:
    """The legend to the right of the axes (never over the data), in two columns past 16
    entries; the saved figure grows to hold it (``bbox_inches="tight"``)."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     fontsize=7, ncol=1 if n <= 16 else 2, **kwargs)


#: A second panel of the learned models alone is drawn when the baselines spread the y-axis this
#: many times wider than the learned models' own spread (they would sit in a flat strip).
FLATTEN_RATIO = 3.0


def _is_baseline(row: dict[str, Any]) -> bool:
    return str(row.get("library", "")) == "baseline"


def plot_ndcg_at_k(table: dict[str, Any], run: RunDir, path: str | Path) -> Path | None:
    """NDCG@k against k for every model of a leaderboard table (all ``ndcg@k`` in ``metrics.csv``).

    Returns the written path, or None when the run has fewer than two ``ndcg@k`` cut-offs.
    """
    metrics = run.table("metrics.csv")
    m = metrics[metrics["split"].astype(str) == table["split"]]
    if "dataset" in m.columns:
        m = m[m["dataset"].astype(str) == table["dataset"]]
    if "profile" in m.columns:
        m = m[m["profile"].astype(str) == table["profile"]]
    m = m.assign(k=[_k_of(str(x)) for x in m["metric"]]).dropna(subset=["k"])
    if m["k"].nunique() < 2:
        return None
    per_seed = m.groupby(["model", "k", "seed"])["value"].mean()
    agg = per_seed.groupby(["model", "k"]).agg(["mean", "std"]).reset_index()
    learned = [r for r in table["rows"] if not _is_baseline(r)]
    zoom = _flattened(agg, table["rows"], learned)
    fig = _figure(width=10.5 if zoom else 6.4)
    ax = fig.add_subplot(1, 2 if zoom else 1, 1)
    styles = _styles(table)
    panels = [(ax, table["rows"])]
    if zoom:
        panels.append((fig.add_subplot(1, 2, 2), learned))
    for axis, rows in panels:
        for row in rows:
            sub = agg[agg["model"].astype(str) == row["model"]].sort_values("k")
            if not sub.empty:
                axis.errorbar(sub["k"], sub["mean"], yerr=sub["std"].fillna(0.0), ms=4,
                              capsize=2, label=row["model"], **styles[str(row["model"])])
        axis.set_xlabel("k")
        axis.grid(alpha=0.3)
    ax.set_ylabel(f"NDCG@k ({table['split']}, profile {table['profile']})")
    ax.set_title(f"{_dataset(table)}: NDCG@k (error bars: ± std over seeds)", fontsize=9)
    if zoom:
        panels[1][0].set_title("learned models only (the baselines flatten them)", fontsize=9)
    handles, labels = ax.get_legend_handles_labels()  # every model is on the first panel
    if not handles:  # no model of the table has ndcg@k values here (a table of no rows)
        return None
    _legend_outside(panels[-1][0], len(table["rows"]), handles=handles, labels=labels)
    return _save(fig, Path(path))


def _flattened(agg: pd.DataFrame, rows: list[dict[str, Any]],
               learned: list[dict[str, Any]]) -> bool:
    """Whether the baselines widen the y-range more than :data:`FLATTEN_RATIO` times the learned
    models' own range (then the learned models get a panel of their own)."""
    if len(learned) < 2 or len(learned) == len(rows):
        return False
    names = {str(r["model"]) for r in learned}
    own = agg[agg["model"].astype(str).isin(names)]["mean"]
    spread_all, spread_own = float(np.ptp(agg["mean"])), float(np.ptp(own))
    return spread_all > FLATTEN_RATIO * max(spread_own, 1e-9)


def _pick_metric(names: list[str], preferred: str) -> str | None:
    if preferred in names:
        return preferred
    ndcgs = sorted((n for n in names if is_family(n, "ndcg")), key=lambda n: (_k_of(n) or 0, n))
    if ndcgs:
        return ndcgs[-1]
    return sorted(names)[0] if names else None


def plot_learning_curves(
    table: dict[str, Any], run: RunDir, path: str | Path, *, preferred: str = PRIMARY_METRIC
) -> Path | None:
    """Validation curves from ``evallog.csv``: per model the library's metric (``preferred`` when
    logged, else its deepest ``ndcg@k``) by iteration, mean over seeds; the mean chosen iteration
    (``timings.csv`` ``best_iteration``) is marked. Returns None when there is no validation log."""
    if not run.has("evallog.csv"):
        return None
    log = run.table("evallog.csv")
    log = log[log["split"].astype(str).isin(["vali", "valid", "validation"])]
    if log.empty:
        return None
    timings = run.table_or_empty("timings.csv")
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    styles = _styles(table)
    plotted = 0
    for row in table["rows"]:
        sub = log[log["model"].astype(str) == row["model"]]
        metric = _pick_metric(sorted({str(x) for x in sub["metric"]}), preferred)
        if metric is None:
            continue
        sub = sub[sub["metric"].astype(str) == metric]
        curve = sub.groupby("iteration")["value"].mean().sort_index()
        style = styles[str(row["model"])]
        (line,) = ax.plot(curve.index, curve.to_numpy(), lw=1.2, color=style["color"],
                          marker=style["marker"], markevery=max(1, len(curve) // 8), ms=3,
                          label=f"{row['model']} ({metric})")
        plotted += 1
        if "best_iteration" in timings.columns:
            bi = pd.to_numeric(
                timings[timings["model"].astype(str) == row["model"]]["best_iteration"],
                errors="coerce",
            ).dropna()
            if len(bi):
                it = round(float(bi.mean()))
                nearest = curve.index[np.argmin(np.abs(curve.index.to_numpy() - it))]
                ax.plot([nearest], [curve.loc[nearest]], marker=style["marker"], ls="none",
                        color=line.get_color(), ms=7, mec="black", mew=0.8)
    if not plotted:
        return None
    ax.set_xlabel("boosting iteration")
    ax.set_ylabel("validation metric (library built-in)")
    ax.set_title(f"{_dataset(table)}: validation curves, mean over seeds (outlined mark = mean "
                 "chosen iteration)", fontsize=9)
    ax.grid(alpha=0.3)
    _legend_outside(ax, plotted)
    return _save(fig, Path(path))


#: Fits faster than this (baselines that count or draw) have no meaningful place on a log time
#: axis: they are drawn as levels across the plot instead of at a made-up time.
INSTANT_FIT_S = 1e-3


def _plain_log_ticks(ax: Any) -> None:
    """Log-axis ticks as plain numbers (``0.5``, ``1``, ``2``, ``5``), at 1-2-5 steps over up to
    three decades and at powers of ten beyond: matplotlib's default labelled the minor ticks of a
    one-decade range ``3x10^-1``, ``4x10^-1`` ..., which overlapped."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    lo, hi = ax.get_xlim()
    decades = np.log10(max(hi, 1e-12) / max(lo, 1e-12))
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_quality_vs_time(table: dict[str, Any], path: str | Path) -> Path | None:
    """Primary metric (mean ± std over seeds) against fit time (median, bars from the fastest to
    the slowest fit over seeds × repeats; log scale); the title names the timing mode, and
    contended fits are marked."""
    metric = table["primary_metric"]
    pts = [
        (r["model"], r["fit_s"], r["metrics"].get(metric))
        for r in table["rows"]
        if _fit_centre(r["fit_s"]) is not None
        and (r["metrics"].get(metric) or {}).get("mean") is not None
    ]
    if not pts:
        return None
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    styles = _styles(table)
    timed = [(m, f, q) for m, f, q in pts if float(_fit_centre(f) or 0.0) >= INSTANT_FIT_S]
    instant = [(m, f, q) for m, f, q in pts if float(_fit_centre(f) or 0.0) < INSTANT_FIT_S]
    for model, fit, q in timed:
        x = float(_fit_centre(fit) or 0.0)
        lo = fit.get("min") if fit.get("min") is not None else x
        hi = fit.get("max") if fit.get("max") is not None else x
        ax.errorbar(  # the left bar stops short of 0 (log axis)
            [x], [q["mean"]], xerr=[[max(0.0, min(x - lo, 0.9 * x))], [max(0.0, hi - x)]],
            yerr=[[q["std"] or 0.0]] * 2, ms=5, capsize=2, **styles[str(model)],
            label=model + (" †" if fit.get("contended") else ""))
    _instant_levels(fig, ax, timed, instant)
    if timed:  # names in a legend: labels beside close points overlapped
        _legend_outside(ax, len(timed), title="y bars: ± std over seeds", title_fontsize=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ax.set_xscale("log")
    _plain_log_ticks(ax)
    modes = sorted({str(f.get("timing")) for _, f, _ in pts if f.get("timing")}) or ["unknown"]
    ax.set_xlabel("fit time (s, log scale): median, bars = fastest to slowest fit")
    ax.set_ylabel(f"{metric} ({table['split']}, profile {table['profile']})")
    title = f"{_dataset(table)}: quality against fit time (timing: {', '.join(modes)})"
    if any(f.get("contended") for _, f, _ in pts):
        title += ("\n† timed while the machine was busy: not a clean time (rerun idle, or with "
                  "--timing isolated)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both")
    return _save(fig, Path(path))


def _instant_levels(fig: Any, ax: Any, timed: list[Any], instant: list[Any]) -> None:
    """Models fitted in no measurable time, as dotted levels across the plot; a level that would
    stretch the y-axis past :data:`FLATTEN_RATIO` times the timed models' spread (a random
    baseline far below the GBDTs) is listed under the plot instead."""
    means = [q["mean"] for _, _, q in timed]
    lo, hi = (min(means), max(means)) if means else (0.0, 0.0)
    reach = FLATTEN_RATIO * max(hi - lo, 0.02)
    away = []
    for model, _, q in instant:
        if len(means) > 1 and not lo - reach <= q["mean"] <= hi + reach:
            away.append(f"{model} {q['mean']:.4f}")
            continue
        ax.axhline(q["mean"], ls=":", lw=1, color="grey")
        ax.annotate(f"{model} (fit < {1000 * INSTANT_FIT_S:.0f} ms)", (0.01, q["mean"]),
                    xycoords=("axes fraction", "data"), fontsize=7, color="dimgrey",
                    xytext=(0, 2), textcoords="offset points")
    if away:
        fig.text(0.01, -0.02, "fitted in < 1 ms, off this scale: " + ", ".join(away),
                 fontsize=7, color="dimgrey", va="top")


def _fit_centre(fit: dict[str, Any]) -> float | None:
    value = fit.get("median") if fit.get("median") is not None else fit.get("mean")
    return None if value is None else float(value)


#: The file names of one table's plots (what ``report`` may write, replace or remove there).
PLOT_NAMES = ("ndcg_at_k.png", "learning_curves.png", "quality_vs_fit_time.png")


def plot_files(table: dict[str, Any], run: RunDir, folder: Path) -> list[Path]:
    """All plots of one leaderboard table into ``folder`` (names :data:`PLOT_NAMES`); returns
    the paths of the plots made (a plot without data is not made). Every text is drawn as
    written: a model or dataset name holding ``$`` is not Matplotlib mathtext
    (``text.parse_math`` off; ``m$\\frac{$x`` raised a ValueError, ``a$b$c`` lost its
    dollars)."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        made = [
            plot_ndcg_at_k(table, run, folder / "ndcg_at_k.png"),
            plot_learning_curves(table, run, folder / "learning_curves.png"),
            plot_quality_vs_time(table, folder / "quality_vs_fit_time.png"),
        ]
    return [p for p in made if p is not None]
