"""What people look at after ``ltrbench tune`` (bench/report/tuning*.py, html_tuning.py): the
best-so-far figure, the parameter importances, the trials table, and the tuned leaderboard
whose default and tuned rows are joined per query, with p-values checked against scipy on the
same pairs read straight from the runs' files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from scipy import stats as sst
from test_reproduce import _loader
from tuning_fixture import make_runs, make_tune_folder

from bench import cli
from bench.benchmark.reproduce import reproduce_leaderboard
from bench.report import tuning_plots
from bench.report.plots import model_styles
from bench.report.tuning import (
    MIN_IMPORTANCE_TRIALS,
    param_importances,
    read_tune_dir,
    render_trials_latex,
    render_trials_markdown,
    trials_summary,
)
from bench.report.tuning_board import pair_runs, tuned_table
from bench.runs.reader import RunDir

matplotlib.use("Agg")

MODELS = ("lightgbm-lambdarank", "xgboost-ndcg")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """``(results folder, default run, tuned run)`` on the same tiny splits and seeds, and a
    tune folder of the same models (its best.toml is the tuned run's config)."""
    out = tmp_path_factory.mktemp("results")
    default, tuned, _ = make_runs(out, MODELS)
    return out, default, tuned


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def _bbox_overlap(a: Any, b: Any) -> bool:
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def test_best_so_far_draws_three_libraries_in_the_leaderboard_styles(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t"))
    fig, notes = tuning_plots.best_so_far_figure(folder, {"xgboost-ndcg": 0.5})
    assert notes == []
    left, right = fig.axes[:2]
    styles = model_styles(folder.models)
    legend = right.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    for model in folder.models:
        assert any(lb.startswith(model) for lb in labels)
    for line in left.lines:
        if line.get_label().startswith("_"):
            continue
        model = line.get_label().split(" (")[0].split(":")[0]
        assert to_rgba(line.get_color()) == to_rgba(styles[model]["color"])
        assert line.get_marker() == styles[model]["marker"]
    # the hollow marker of the tuned run's test score sits at the last trial
    hollow = [ln for ln in left.lines if ln.get_label() == "xgboost-ndcg: test, tuned run"]
    assert len(hollow) == 1
    assert hollow[0].get_markerfacecolor() == "none"
    assert hollow[0].get_xdata()[0] == len(folder.of("xgboost-ndcg"))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    for ax in (left, right):
        assert not _bbox_overlap(box, ax.get_window_extent(renderer)), "legend over the data"


def test_the_curves_are_the_running_maximum_over_trials_and_cpu_seconds(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t", ("xgboost-ndcg",)))
    fig, _ = tuning_plots.best_so_far_figure(folder)
    left, right = fig.axes[:2]
    sub = folder.of("xgboost-ndcg")
    values = sub["value"].where(sub["state"] == "COMPLETE").to_numpy()
    by_hand = [max([v for v in values[:i + 1] if v == v], default=np.nan)
               for i in range(len(values))]
    steps = [ln for ln in left.lines if ln.get_drawstyle() == "steps-post"]
    np.testing.assert_allclose(steps[0].get_ydata(), by_hand)
    cpu = next(ln for ln in right.lines if ln.get_drawstyle() == "steps-post").get_xdata()
    np.testing.assert_allclose(cpu, np.cumsum(sub["cpu_s"].to_numpy()))


def test_one_trial_only_draws_a_point(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t", n_trials=1))
    path, notes = tuning_plots.plot_best_so_far(folder, tmp_path / "b.png")
    assert path.stat().st_size > 0
    assert notes == []
    imp = param_importances(folder)
    assert all(isinstance(v, str) and f"at least {MIN_IMPORTANCE_TRIALS}" in v
               for v in imp.values())
    assert tuning_plots.plot_importances(imp, tmp_path / "i.png").stat().st_size > 0


def test_all_pruned_is_a_note_not_a_crash(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t", n_trials=3, prune_all=True))
    path, notes = tuning_plots.plot_best_so_far(folder, tmp_path / "b.png")
    assert path.is_file()
    assert len(notes) == 3
    assert all("no complete trial" in n for n in notes)
    rows = trials_summary(folder)
    assert all(r["best_value"] is None and r["pruned"] == 3 for r in rows)
    assert "| – |" in render_trials_markdown(rows)
    assert "--" in render_trials_latex(rows)


def test_importances_come_from_optunas_fanova_per_model(tmp_path: Path) -> None:
    import optuna
    from optuna.importance import FanovaImportanceEvaluator, get_param_importances

    folder = read_tune_dir(make_tune_folder(tmp_path / "t", n_trials=12))
    got = param_importances(folder)
    study = optuna.load_study(study_name="synthetic:xgboost-ndcg",
                              storage=f"sqlite:///{folder.study_db}")
    want = get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=0))
    assert got["xgboost-ndcg"] == pytest.approx(dict(want))
    assert sum(got["xgboost-ndcg"].values()) == pytest.approx(1.0)  # type: ignore[union-attr]


def test_importances_never_write_to_the_study_db(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t", n_trials=6))
    before = folder.study_db.read_bytes()
    param_importances(folder)
    assert folder.study_db.read_bytes() == before


def test_trials_table_counts_by_hand(tmp_path: Path) -> None:
    folder = read_tune_dir(make_tune_folder(tmp_path / "t", ("xgboost-ndcg",), n_trials=8))
    (row,) = trials_summary(folder)
    # trials 3 and 7 are pruned by the fixture (number % 4 == 3)
    assert (row["trials"], row["complete"], row["pruned"], row["failed"]) == (8, 6, 2, 0)
    cpu = sum(0.5 + 0.1 * n for n in range(8))
    assert row["cpu_s"] == pytest.approx(cpu)
    frame = pd.read_csv(folder.path / "trials.csv")
    done = frame[frame["state"] == "COMPLETE"]
    assert row["best_value"] == done["value"].max()
    assert row["best_trial"] == int(done.loc[done["value"].idxmax(), "trial"])
    md = render_trials_markdown([row])
    assert md.count("\n") == 3
    assert "xgboost-ndcg" in md
    assert "8 trials" in md


# ---------------------------------------------------------------------------------------------
# The tuned leaderboard
# ---------------------------------------------------------------------------------------------


def _seed_mean(run: Path, model: str, metric: str = "ndcg@10") -> pd.Series:
    pq = pd.read_parquet(run / "per_query.parquet")
    sub = pq[(pq["model"] == model) & (pq["metric"] == metric) & (pq["split"] == "test")]
    return sub.groupby("qid")["value"].mean()


def test_the_pair_is_told_apart_by_best_toml(runs: tuple[Path, Path, Path]) -> None:
    out, default, tuned = runs
    from bench.data.toml import read_toml

    best = read_toml(out / "tune" / "t1" / "best.toml")
    d, t = pair_runs([RunDir(tuned), RunDir(default)], best)
    assert (d.path, t.path) == (default, tuned)


def test_tuned_vs_default_p_values_equal_scipy_on_the_same_pairs(
        runs: tuple[Path, Path, Path]) -> None:
    _, default, tuned = runs
    board = tuned_table(RunDir(default), RunDir(tuned), "tiny")
    raw_t, raw_r = [], []
    for entry in board.versus_default:
        a = _seed_mean(default, entry["model"])
        b = _seed_mean(tuned, entry["model"]).reindex(a.index)
        assert entry["n_queries"] == len(a)
        assert entry["default"] == pytest.approx(a.mean())
        assert entry["tuned"] == pytest.approx(b.mean())
        raw_t.append(sst.ttest_rel(b.to_numpy(), a.to_numpy()).pvalue)
        exact = sst.permutation_test((b.to_numpy(), a.to_numpy()),
                                     lambda x, y: np.mean(x - y), permutation_type="samples",
                                     n_resamples=np.inf, alternative="two-sided")
        raw_r.append(exact.pvalue)
        assert entry["p_t"] == pytest.approx(raw_t[-1], rel=1e-12)
        assert entry["p_randomization"] == pytest.approx(raw_r[-1], rel=1e-9)
    # Holm over two models by hand: the smaller p times 2, the larger max(itself, that)
    lo, hi = sorted(range(2), key=lambda i: raw_t[i])
    holm_lo = min(1.0, 2 * raw_t[lo])
    assert board.versus_default[lo]["p_t_holm"] == pytest.approx(holm_lo)
    assert board.versus_default[hi]["p_t_holm"] == pytest.approx(max(holm_lo, raw_t[hi]))


def test_joined_rows_are_paired_per_query_against_the_best_row(
        runs: tuple[Path, Path, Path]) -> None:
    _, default, tuned = runs
    table = tuned_table(RunDir(default), RunDir(tuned), "tiny").table
    names = [r.model for r in table.rows]
    assert sorted(names) == sorted(f"{m} {t}" for m in MODELS for t in ("(default)", "(tuned)"))
    values = {f"{m} (default)": _seed_mean(default, m) for m in MODELS}
    values |= {f"{m} (tuned)": _seed_mean(tuned, m) for m in MODELS}
    means = {k: v.mean() for k, v in values.items()}
    assert names[0] == max(means, key=lambda k: means[k])
    best = values[names[0]]
    raw = [sst.ttest_rel(best.to_numpy(), values[n].reindex(best.index).to_numpy()).pvalue
           for n in names[1:]]
    order = np.argsort(raw)
    holm, running = np.empty(3), 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (3 - j) * raw[i]))
        holm[i] = running
    for row, p, ph in zip(table.rows[1:], raw, holm, strict=True):
        assert row.vs_best is not None
        assert row.vs_best.p_t == pytest.approx(p, rel=1e-12)
        assert row.vs_best.p_t_holm == pytest.approx(ph, rel=1e-12)
    assert table.rows[0].vs_best is None
    for row in table.rows:  # the interval is over the same 10 queries as the other rows'
        assert row.metrics["ndcg@10"].n_queries == 10
        assert row.metrics["ndcg@10"].ci_mean == pytest.approx(means[row.model])


def test_report_tuned_writes_the_set_and_reproduce_reruns_both_configs(
        runs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    out, default, tuned = runs
    status = cli.main(["report", "--tuned", str(out / "tune" / "t1"), "--runs", str(default),
                       str(tuned), "--out", str(out), "--html", "--no-progress",
                       "--bootstrap", "200", "--permutations", "500"])
    assert status == 0
    for name in ("md", "csv", "json", "tex", "html"):
        assert (out / f"leaderboard-tuned-tiny.{name}").is_file()
    for name in ("best_so_far.png", "importances.png", "trials.md", "trials.tex", "trials.csv"):
        assert (out / "tuned-tiny" / name).is_file()
    doc = json.loads((out / "leaderboard-tuned-tiny.json").read_text(encoding="utf-8"))
    entry = doc["tuned"][0]
    assert entry["default_run"]["run_dir"] == f"runs/{default.name}"
    assert entry["tuned_run"]["run_config"] == f"runs/{tuned.name}/config.toml"
    html = (out / "leaderboard-tuned-tiny.html").read_text(encoding="utf-8")
    assert 'id="tuning"' in html
    assert "data:image/png;base64," in html
    assert "Tuned against default" in html
    # the drill-down of the joined table reads both runs' per-query values (it said "no
    # per-query values" for rows named "<model> (tuned)", which no run holds)
    assert '<svg class="scatter"' in html
    assert "No per-query" not in html
    md = (out / "leaderboard-tuned-tiny.md").read_text(encoding="utf-8")
    assert "lightgbm-lambdarank (tuned)" in md
    assert "## Trials" in md
    # the table files against the JSON (round 12), then the two runs
    rendered, outcome = reproduce_leaderboard(out / "leaderboard-tuned-tiny.json",
                                              loader=_loader)
    assert rendered.status == "match", rendered.differences[:3]
    assert not rendered.reran, rendered.differences[:3]
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.compared > 1000


def test_without_runs_the_newest_pair_of_best_toml_is_found(
        runs: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, default, tuned = runs
    status = cli.main(["report", "--tuned", str(out / "tune" / "t1"), "--out", str(out),
                       "--no-plots", "--no-progress", "--format", "json", "--bootstrap", "50",
                       "--permutations", "50"])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tuned"][0]["default_run"]["run_id"] == default.name
    assert doc["tuned"][0]["tuned_run"]["run_id"] == tuned.name


def test_a_run_of_best_toml_is_reproduced_bit_for_bit(runs: tuple[Path, Path, Path]) -> None:
    from bench.benchmark.reproduce import reproduce_run

    _, _, tuned = runs
    outcome = reproduce_run(tuned, loader=_loader)
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.compared > 0
