"""Plots that hold 3 to 30 models (bench/report/plots.py): no two models look alike, the legend
never covers the data, the learned models get their own panel when baselines would flatten
them, and far-off instant baselines do not stretch the quality/time axis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

from bench.report import plots
from bench.runs.reader import RunDir

matplotlib.use("Agg")

KS = (1, 3, 5, 10)


def _run(tmp_path: Path, n_learned: int, baselines: tuple[str, ...]) -> tuple[RunDir, dict[str, Any]]:
    """A run directory of ``n_learned`` learned models around NDCG 0.70 and ``baselines`` far
    below, with eval logs and timings, and its leaderboard table dict."""
    rng = np.random.default_rng(0)
    learned = [f"model-{i:02d}" for i in range(n_learned)]
    rows, logs, times, table_rows = [], [], [], []
    for i, model in enumerate([*learned, *baselines]):
        base = 0.70 + 0.002 * i if model in learned else 0.10 + 0.01 * i / 30
        library = "custom" if model in learned else "baseline"
        for seed in (0, 1):
            for k in KS:
                rows.append(("d", model, library, seed, "test", f"ndcg@{k}",
                             base - 0.01 * np.log(k) + rng.normal(0, 0.002), "ltrbench"))
            fit = 2.0 + i if model in learned else 0.0
            times.append(("d", model, library, seed, fit, 0.01, 100.0, 40, 50, fit, 0.0, 0.0,
                          False, "inprocess", 1, fit, fit, str(fit)))
            if model in learned:
                for it in range(1, 51):
                    logs.append((model, seed, it, "vali", "ndcg@10", base * (1 - np.exp(-it / 10))))
        table_rows.append({"model": model, "library": library,
                           "fit_s": {"median": 2.0 + i if model in learned else 0.0,
                                     "min": None, "max": None},
                           "metrics": {"ndcg@10": {"mean": base, "std": 0.002}}})
    run = tmp_path / "run"
    run.mkdir()
    pd.DataFrame(rows, columns=["dataset", "model", "library", "seed", "split", "metric", "value",
                                "profile"]).to_csv(run / "metrics.csv", index=False)
    pd.DataFrame(logs, columns=["model", "seed", "iteration", "split", "metric", "value"]).to_csv(
        run / "evallog.csv", index=False)
    pd.DataFrame(times, columns=["dataset", "model", "library", "seed", "fit_s", "predict_s",
                                 "peak_rss_mb", "best_iteration", "n_trees", "fit_cpu_s",
                                 "other_load", "steal_load", "contended", "timing", "repeats",
                                 "fit_s_min", "fit_s_max", "fit_s_repeats"]).to_csv(
        run / "timings.csv", index=False)
    table = {"dataset": "d", "split": "test", "profile": "ltrbench", "primary_metric": "ndcg@10",
             "rows": table_rows}
    return RunDir(run), table


def _figures(run: RunDir, table: dict[str, Any], tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Each plot's figure, as it was saved."""
    saved: dict[str, Any] = {}
    real = plots._save

    def keep(fig: Any, path: Path) -> Path:
        saved[path.name] = fig
        return real(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    plots.plot_files(table, run, tmp_path)
    return saved


@pytest.mark.parametrize(("n_learned", "baselines"), [(3, ()), (27, ("random", "popularity", "als"))])
def test_no_two_models_share_a_colour_and_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 n_learned: int, baselines: tuple[str, ...]) -> None:
    run, table = _run(tmp_path, n_learned, baselines)
    figs = _figures(run, table, tmp_path, monkeypatch)
    assert set(figs) == {"ndcg_at_k.png", "learning_curves.png", "quality_vs_fit_time.png"}
    for name, fig in figs.items():
        ax = fig.axes[0]
        lines = [c.lines[0] for c in ax.containers] or \
            [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        looks = [(tuple(np.round(to_rgba(ln.get_color()), 6)), ln.get_marker()) for ln in lines]
        assert len(looks) == n_learned + (len(baselines) if name == "ndcg_at_k.png" else 0), name
        assert len(looks) == len(set(looks)), name
    # and in table order the first twenty colours are all different
    styles = plots.model_styles([f"m{i}" for i in range(30)])
    colours = [tuple(np.round(to_rgba(styles[f"m{i}"]["color"]), 6)) for i in range(20)]
    assert len(set(colours)) == 20


@pytest.mark.parametrize(("n_learned", "baselines"), [(3, ("random",)), (27, ("random", "popularity", "als"))])
def test_the_legend_lies_outside_every_axes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            n_learned: int, baselines: tuple[str, ...]) -> None:
    run, table = _run(tmp_path, n_learned, baselines)
    for name, fig in _figures(run, table, tmp_path, monkeypatch).items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
        assert len(legends) == 1, name
        box = legends[0].get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), name
        assert min(t.get_fontsize() for t in legends[0].get_texts()) >= 7


def test_baselines_far_below_give_the_learned_models_their_own_panel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, table = _run(tmp_path, 5, ("random", "popularity"))
    fig = _figures(run, table, tmp_path, monkeypatch)["ndcg_at_k.png"]
    assert len(fig.axes) == 2
    zoom = fig.axes[1]
    lo, hi = zoom.get_ylim()
    assert lo > 0.5  # baselines (about 0.1) are not on the zoomed panel
    assert hi - lo < 0.2
    assert len([c for c in zoom.containers]) == 5


def test_learned_models_alone_get_one_panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, table = _run(tmp_path, 4, ())
    assert len(_figures(run, table, tmp_path, monkeypatch)["ndcg_at_k.png"].axes) == 1


def test_an_instant_baseline_far_off_is_listed_not_drawn(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    run, table = _run(tmp_path, 6, ("random",))
    fig = _figures(run, table, tmp_path, monkeypatch)["quality_vs_fit_time.png"]
    ax = fig.axes[0]
    assert ax.get_ylim()[0] > 0.5
    assert any("off this scale: random 0.1" in t.get_text() for t in fig.texts)
