"""Leaderboards from a small synthetic run directory written here following the run layout."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics.families import metric_header
from bench.report import stats
from bench.report.build import LeaderboardOptions, build_leaderboard
from bench.report.latex import render_latex, tex_escape
from bench.report.leaderboard import write_leaderboard
from bench.report.plots import plot_files
from bench.runs.naming import dataset_slug
from bench.runs.reader import RunDir

METRICS = ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@10", "mrr", "p@10", "recall@10")
MODELS = {"lightgbm-lambdarank": 0.15, "xgboost-ndcg": 0.12, "random": -0.2}
SEEDS = (0, 1, 2)
N_TEST = 40
BLANK = (5, 21, 33)
OPTS = LeaderboardOptions(bootstrap_resamples=300, randomization_resamples=2000)


def write_run(
    root: Path,
    run_id: str,
    *,
    dataset: str = "toy_set",
    finished: str = "2026-01-01T00:00:00+00:00",
    models: dict[str, float] = MODELS,
    per_query: bool = True,
    seed: int = 0,
) -> Path:
    """A run directory with config, manifest, metrics, per-query values, timings and eval log.

    Per-query values are random in [0, 1] shifted per model; blank test queries are NaN under the
    default profile; metrics.csv holds the per-seed means of the per-query values (as the
    runners write them) plus the blank0/blank1 profile rows for NDCG.
    """
    rng = np.random.default_rng(seed)
    run = root / run_id
    run.mkdir(parents=True)
    (run / "config.toml").write_text(
        f'dataset = "{dataset}"\nprofile = "ltrbench"\nmodels = {json.dumps(list(models))}\n'
        f"seeds = [0, 1, 2]\nquick = true\n"
    )
    (run / "manifest.json").write_text(json.dumps({"finished": finished, "seeds": list(SEEDS)}))
    pq_rows, m_rows, t_rows, e_rows = [], [], [], []
    base = rng.random((len(METRICS), N_TEST)) * 0.6 + 0.2
    for model, shift in models.items():
        lib = model.split("-")[0]
        for s in SEEDS:
            for split, nq in (("test", N_TEST), ("vali", 10)):
                for mi, metric in enumerate(METRICS):
                    vals = np.clip(base[mi, :nq] + shift + rng.normal(0, 0.05, nq), 0, 1)
                    if split == "test":
                        vals[list(BLANK)] = np.nan
                    pq_rows += [
                        (dataset, model, s, split, q, metric, float(v)) for q, v in enumerate(vals)
                    ]
                    m_rows.append((dataset, model, lib, s, split, metric, np.nanmean(vals), "ltrbench"))
                    if metric.startswith("ndcg") and split == "test":
                        nb = int(np.isnan(vals).sum())
                        tot = np.nansum(vals)
                        m_rows.append((dataset, model, lib, s, split, metric, tot / nq, "ltrbench-blank0"))
                        m_rows.append(
                            (dataset, model, lib, s, split, metric, (tot + nb) / nq, "ltrbench-blank1")
                        )
            t_rows.append((dataset, model, lib, s, 1.5 + s * 0.1 + shift, 0.01, 100.0, 20 + s, 20 + s))
            for it in range(1, 31):
                e_rows.append((model, s, it, "vali", "ndcg@10", 0.5 + 0.2 * (1 - math.exp(-it / 8)) + shift))
    cols = ["dataset", "model", "library", "seed", "split", "metric", "value", "profile"]
    pd.DataFrame(m_rows, columns=cols).to_csv(run / "metrics.csv", index=False)
    if per_query:
        pd.DataFrame(
            pq_rows, columns=["dataset", "model", "seed", "split", "qid", "metric", "value"]
        ).to_parquet(run / "per_query.parquet")
    pd.DataFrame(
        t_rows,
        columns=["dataset", "model", "library", "seed", "fit_s", "predict_s", "peak_rss_mb",
                 "best_iteration", "n_trees"],
    ).to_csv(run / "timings.csv", index=False)
    pd.DataFrame(e_rows, columns=["model", "seed", "iteration", "split", "metric", "value"]).to_csv(
        run / "evallog.csv", index=False
    )
    return run


@pytest.fixture
def results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    write_run(out / "runs", "20260101-000000-toy")
    return out


def _seed_avg_matrix(run: Path, metric: str, models: list[str]) -> np.ndarray:
    pq = pd.read_parquet(run / "per_query.parquet")
    pq = pq[(pq["split"] == "test") & (pq["metric"] == metric)]
    return pq.groupby(["model", "qid"])["value"].mean().unstack("qid").reindex(models).to_numpy()


def test_json_rows_hold_seed_mean_std_and_are_wired_to_the_ci_and_holm_statistics(
    results: Path,
) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    doc = json.loads(Path(written["json"]).read_text())
    assert doc["tables"][0]["dataset"] == "toy_set"
    table = doc["tables"][0]
    assert table["run_id"] == "20260101-000000-toy"
    assert table["run_config"] == "runs/20260101-000000-toy/config.toml"
    assert (results / table["run_config"]).is_file()
    assert table["profile"] == "ltrbench"
    assert table["split"] == "test"
    assert table["seeds"] == [0, 1, 2]
    assert table["n_queries"] == N_TEST
    assert table["blank_queries"] == len(BLANK)
    models = [r["model"] for r in table["rows"]]
    assert models == ["lightgbm-lambdarank", "xgboost-ndcg", "random"]
    assert table["best_model"] == "lightgbm-lambdarank"

    metrics = pd.read_csv(results / "runs/20260101-000000-toy/metrics.csv")
    run = results / "runs/20260101-000000-toy"
    for row in table["rows"]:
        for metric in METRICS:
            per_seed = metrics[
                (metrics.model == row["model"]) & (metrics.metric == metric)
                & (metrics.split == "test") & (metrics.profile == "ltrbench")
            ].sort_values("seed")["value"].to_numpy()
            entry = row["metrics"][metric]
            assert entry["mean"] == pytest.approx(per_seed.mean())
            assert entry["std"] == pytest.approx(per_seed.std(ddof=1))
            assert entry["ci_low"] <= entry["ci_mean"] <= entry["ci_high"]
            assert entry["n_queries"] == N_TEST - len(BLANK)
    # Wiring only: the table carries the CI and tests of the seed-averaged per-query matrix (the
    # statistics themselves are checked by hand in test_report_stats.py and in the hand-computed case below).
    mat = _seed_avg_matrix(run, "ndcg@10", models)
    ci = stats.bootstrap_ci(mat, n_resamples=300, seed=0)
    vs = stats.compare_with_best(mat, best=0, n_resamples=2000, seed=0)
    for i, row in enumerate(table["rows"]):
        assert row["metrics"]["ndcg@10"]["ci_low"] == pytest.approx(ci.low[i])
        assert row["metrics"]["ndcg@10"]["ci_high"] == pytest.approx(ci.high[i])
        if i == 0:
            assert row["vs_best"] is None
        else:
            assert row["vs_best"]["p_randomization_holm"] == pytest.approx(vs.p_randomization_holm[i])
            assert row["vs_best"]["p_t_holm"] == pytest.approx(vs.p_t_holm[i])
            assert row["vs_best"]["p_t_holm"] >= row["vs_best"]["p_t"]


def _write_tiny_run(root: Path, per_query: dict[str, list[float]]) -> Path:
    """One seed, one metric (ndcg@10) on the test split, per-query values as given."""
    run = root / "runs" / "20260101-000000-tiny"
    run.mkdir(parents=True)
    (run / "config.toml").write_text(
        f'dataset = "tiny"\nprofile = "ltrbench"\nmodels = {json.dumps(list(per_query))}\nseeds = [0]\n'
    )
    (run / "manifest.json").write_text(json.dumps({"finished": "2026-01-01T00:00:00+00:00"}))
    pq = [("tiny", m, 0, "test", q, "ndcg@10", v) for m, vals in per_query.items()
          for q, v in enumerate(vals)]
    pd.DataFrame(pq, columns=["dataset", "model", "seed", "split", "qid", "metric", "value"]).to_parquet(
        run / "per_query.parquet"
    )
    m_rows = [("tiny", m, m.split("-")[0], 0, "test", "ndcg@10", sum(vals) / len(vals), "ltrbench")
              for m, vals in per_query.items()]
    pd.DataFrame(m_rows, columns=["dataset", "model", "library", "seed", "split", "metric", "value",
                                  "profile"]).to_csv(run / "metrics.csv", index=False)
    return run


def _t_p_df2(d: list[float]) -> float:
    """Two-sided paired t p-value for 3 differences (df = 2), from the closed-form CDF of
    Student's t with 2 degrees of freedom: p = 1 - |t| / sqrt(t^2 + 2)."""
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    t = mean / (sd / math.sqrt(n))
    return 1.0 - abs(t) / math.sqrt(t * t + 2.0)


def test_leaderboard_p_values_match_a_hand_enumerated_randomization_test_and_holm(
    tmp_path: Path,
) -> None:
    # 3 models x 3 queries. Best = "a" (mean 0.8).
    # a - b = (0.3, -0.1, 0.0), sum 0.2: the 8 sign flips give |sum| in {0.4, 0.2} (each 4
    #   times), all >= 0.2, so the exact p = 8/8 = 1.
    # a - c = (0.4, 0.4, 0.3), sum 1.1: only (+,+,+) and (-,-,-) reach |sum| >= 1.1 (the
    #   next largest is 0.5), so p = 2/8 = 0.25.
    # Holm over m = 2: sorted 0.25 (c), 1.0 (b) -> c: min(1, 2 * 0.25) = 0.5;
    #   b: max(0.5, min(1, 1 * 1.0)) = 1.0.
    run = _write_tiny_run(tmp_path, {"a": [0.9, 0.8, 0.7], "b": [0.6, 0.9, 0.7],
                                     "c": [0.5, 0.4, 0.4]})
    opts = LeaderboardOptions(metrics=("ndcg@10",), bootstrap_resamples=50,
                              randomization_resamples=1000)
    table = build_leaderboard([run], options=opts)["tables"][0]
    rows = {r["model"]: r for r in table["rows"]}
    assert table["best_model"] == "a"
    assert rows["a"]["vs_best"] is None
    assert rows["b"]["vs_best"]["p_randomization"] == pytest.approx(1.0)
    assert rows["c"]["vs_best"]["p_randomization"] == pytest.approx(0.25)
    assert rows["b"]["vs_best"]["p_randomization_holm"] == pytest.approx(1.0)
    assert rows["c"]["vs_best"]["p_randomization_holm"] == pytest.approx(0.5)
    # paired t (df = 2): c: t = 11, p = 1 - 11/sqrt(123); b: t = 0.0667 / 0.1202.
    p_t_b = _t_p_df2([0.3, -0.1, 0.0])
    p_t_c = _t_p_df2([0.4, 0.4, 0.3])
    assert p_t_c == pytest.approx(1 - 11 / math.sqrt(123), rel=1e-9)
    assert rows["b"]["vs_best"]["p_t"] == pytest.approx(p_t_b, rel=1e-9)
    assert rows["c"]["vs_best"]["p_t"] == pytest.approx(p_t_c, rel=1e-9)
    assert rows["c"]["vs_best"]["p_t_holm"] == pytest.approx(2 * p_t_c, rel=1e-9)
    assert rows["b"]["vs_best"]["p_t_holm"] == pytest.approx(max(2 * p_t_c, p_t_b), rel=1e-9)
    assert rows["a"]["metrics"]["ndcg@10"]["mean"] == pytest.approx(0.8)


def test_blank_queries_get_ndcg_under_both_policies(results: Path) -> None:
    doc = build_leaderboard([results / "runs"], options=OPTS, base_dir=results)
    row = doc["tables"][0]["rows"][0]
    pq = pd.read_parquet(results / "runs/20260101-000000-toy/per_query.parquet")
    sub = pq[(pq.model == row["model"]) & (pq.split == "test") & (pq.metric == "ndcg@10")]
    blank0 = sub.groupby("seed")["value"].apply(lambda v: v.fillna(0).mean()).mean()
    blank1 = sub.groupby("seed")["value"].apply(lambda v: v.fillna(1).mean()).mean()
    assert row["blank"]["ndcg@10"]["blank0"]["mean"] == pytest.approx(blank0)
    assert row["blank"]["ndcg@10"]["blank1"]["mean"] == pytest.approx(blank1)
    assert set(row["blank"]) == {"ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"}


def test_blank_policies_fall_back_to_per_query_values_without_profile_rows(results: Path) -> None:
    run = results / "runs/20260101-000000-toy"
    m = pd.read_csv(run / "metrics.csv")
    m[m.profile == "ltrbench"].to_csv(run / "metrics.csv", index=False)
    doc = build_leaderboard([run], options=OPTS)
    row = doc["tables"][0]["rows"][1]
    pq = pd.read_parquet(run / "per_query.parquet")
    sub = pq[(pq.model == row["model"]) & (pq.split == "test") & (pq.metric == "ndcg@5")]
    blank1 = sub.groupby("seed")["value"].apply(lambda v: v.fillna(1).mean()).mean()
    assert row["blank"]["ndcg@5"]["blank1"]["mean"] == pytest.approx(blank1)


def test_markdown_names_profile_run_and_config_and_pastes_as_tables(results: Path) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    md = Path(written["md"]).read_text()
    assert "## toy_set — test split, profile `ltrbench`" in md
    assert "Run `20260101-000000-toy`" in md
    assert "config `runs/20260101-000000-toy/config.toml`" in md
    assert f"{len(BLANK)} blank" in md
    header = ("| Model | NDCG@1 | NDCG@3 | NDCG@5 | NDCG@10 | MAP@10 | MRR | P@10 | R@10 "
              "| Fit s: median [range] |")
    assert header in md
    doc = json.loads(Path(written["json"]).read_text())
    best = doc["tables"][0]["rows"][0]
    e = best["metrics"]["ndcg@10"]
    assert f"**{e['mean']:.4f} ± {e['std']:.4f}**" in md
    line = next(ln for ln in md.splitlines() if ln.startswith("| lightgbm-lambdarank"))
    assert line.rstrip().endswith("| best | best |")
    # every table line of the main table has the same number of cells as the header
    main_lines = [ln for ln in md.splitlines() if ln.startswith("| ") and "Fit (s)" not in ln]
    assert any("blank=0" in ln for ln in md.splitlines())
    assert all(ln.count("|") >= 4 for ln in main_lines)


def test_published_numbers_are_shown_beside_ours_with_how_each_was_selected(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "20260101-000000-mslr", dataset="mslr-web30k")
    config = (run / "config.toml").read_text().replace("quick = true", "quick = false")
    (run / "config.toml").write_text(config + 'published = "lightgbm-experiments"\n')  # a
    # quick run is set beside no published row (tests/test_hostile_round21c_papers.py)
    manifest = json.loads((run / "manifest.json").read_text())  # read from the catalogue card
    manifest["dataset"] = {"name": "mslr-web30k", "meta": {"card": "mslr-web30k"}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    written = write_leaderboard([tmp_path / "runs"], tmp_path, options=OPTS, plots=False)
    md = Path(written["md"]).read_text()
    assert "best test iteration" in md  # the published side's selection rule is named
    # LightGBM docs/Experiments.rst, MSLR-WEB30K NDCG@10 of LightGBM, beside our seed mean
    metrics = pd.read_csv(run / "metrics.csv")
    ours = metrics[(metrics.model == "lightgbm-lambdarank") & (metrics.split == "test")
                   & (metrics.metric == "ndcg@10") & (metrics.profile == "ltrbench")]["value"].mean()
    line = next(ln for ln in md.splitlines() if ln.startswith("| LightGBM | lightgbm-lambdarank"))
    assert "| 0.524252 |" in line
    assert f"| {ours:.4f} |" in line
    # a published row without an ltrbench counterpart is listed with no number of ours
    exact = next(ln for ln in md.splitlines() if ln.startswith("| xgboost (exact"))
    assert "| (none) |" in exact
    table = json.loads(Path(written["json"]).read_text())["tables"][0]
    assert {p["row"] for p in table["published"]} == {
        "LightGBM", "xgboost_hist", "xgboost (exact, max_depth=8)"}


def test_an_unknown_published_entry_is_an_error_listing_the_known_ones(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "20260101-000000-mslr", dataset="mslr-web30k")
    with open(run / "config.toml", "a") as fh:
        fh.write('published = "no-such-table"\n')
    with pytest.raises(ConfigError, match="unknown published entry 'no-such-table'; known: "):
        write_leaderboard([tmp_path / "runs"], tmp_path, options=OPTS, plots=False)


def test_csv_has_one_row_per_model_with_every_number(results: Path) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    frame = pd.read_csv(written["csv"])
    doc = json.loads(Path(written["json"]).read_text())
    assert len(frame) == 3
    assert list(frame["model"]) == ["lightgbm-lambdarank", "xgboost-ndcg", "random"]
    for col in ("ndcg@10_mean", "ndcg@10_std", "ndcg@10_ci_low", "ndcg@10_ci_high", "fit_s_mean",
                "p_randomization_holm", "p_t_holm", "ndcg@10_blank0_mean", "run_id", "run_config"):
        assert col in frame.columns
    for i, row in enumerate(doc["tables"][0]["rows"]):
        assert frame.loc[i, "ndcg@10_mean"] == pytest.approx(row["metrics"]["ndcg@10"]["mean"])
        assert frame.loc[i, "fit_s_mean"] == pytest.approx(row["fit_s"]["mean"])
    assert math.isnan(frame.loc[0, "p_t_holm"])


def test_latex_is_booktabs_with_escaped_names(results: Path) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    tex = Path(written["tex"]).read_text()
    for token in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}", "\\end{table}"):
        assert token in tex
    assert "toy\\_set" in tex
    assert "toy_set" not in tex.replace("toy\\_set", "")
    assert "\\pm" in tex
    assert "\\mathbf{" in tex
    body = tex[tex.index("\\midrule") : tex.index("\\bottomrule")]
    assert body.count("\\\\") == 3  # three model rows
    assert tex_escape("a_b&c%") == "a\\_b\\&c\\%"


def test_most_recent_run_supplies_the_table_and_each_dataset_gets_one(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "old", finished="2026-01-01T00:00:00+00:00", seed=1)
    write_run(runs, "new", finished="2026-02-01T00:00:00+00:00", seed=2,
              models={"lightgbm-lambdarank": 0.1, "random": -0.1})
    write_run(runs, "other", dataset="ohsumed", finished="2025-06-01T00:00:00+00:00", seed=3)
    doc = build_leaderboard([runs], options=OPTS, base_dir=tmp_path)
    by_ds = {t["dataset"]: t for t in doc["tables"]}
    assert set(by_ds) == {"toy_set", "ohsumed"}
    assert by_ds["toy_set"]["run_id"] == "new"
    assert len(by_ds["toy_set"]["rows"]) == 2
    assert by_ds["ohsumed"]["run_id"] == "other"
    assert by_ds["ohsumed"]["run_config"] == "runs/other/config.toml"


def test_without_per_query_values_the_table_has_no_ci_and_says_so(tmp_path: Path) -> None:
    run = write_run(tmp_path, "r", per_query=False)
    doc = build_leaderboard([run], options=OPTS)
    table = doc["tables"][0]
    assert table["rows"][0]["metrics"]["ndcg@10"]["ci_low"] is None
    assert all(r["vs_best"] is None for r in table["rows"])
    assert any("per_query.parquet absent" in n for n in table["notes"])
    # the JSON stays valid (no NaN) even with missing numbers
    json.dumps(doc, allow_nan=False)


def test_missing_columns_name_the_file(tmp_path: Path) -> None:
    run = write_run(tmp_path, "r")
    pd.DataFrame({"model": ["a"], "value": [1.0]}).to_csv(run / "metrics.csv", index=False)
    with pytest.raises(DataError, match=r"metrics.csv: missing column\(s\) dataset"):
        build_leaderboard([run])


def test_empty_runs_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    with pytest.raises(DataError, match="no finished run directory"):
        write_leaderboard([tmp_path / "runs"], tmp_path)


def test_plots_are_written_and_not_empty(results: Path) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=True)
    names = {Path(p).name for p in written["plots"]}
    assert names == {"ndcg_at_k.png", "learning_curves.png", "quality_vs_fit_time.png"}
    for p in written["plots"]:
        path = Path(p)
        assert path.parent == results / "toy_set"
        data = path.read_bytes()
        assert len(data) > 1000
        assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_files_skips_learning_curves_without_an_eval_log(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r")
    (run / "evallog.csv").unlink()
    doc = build_leaderboard([run], options=OPTS)
    made = plot_files(doc["tables"][0], RunDir(run), tmp_path / "out")
    assert {p.name for p in made} == {"ndcg_at_k.png", "quality_vs_fit_time.png"}


def test_report_command_writes_every_format(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.commands import report

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    report.register(sub)
    args = parser.parse_args(
        ["report", "--out", str(results), "--bootstrap", "200", "--permutations", "500", "--no-plots"]
    )
    assert args.func(args) == 0
    for ext in ("md", "csv", "json", "tex"):
        assert (results / f"leaderboard.{ext}").stat().st_size > 0
    assert "toy_set: 3 models from run 20260101-000000-toy" in capsys.readouterr().out
    args = parser.parse_args(["report", "--out", str(results), "--format", "json", "--no-plots",
                              "--bootstrap", "100", "--permutations", "100"])
    assert args.func(args) == 0
    doc = json.load(io.StringIO(capsys.readouterr().out))
    assert doc["tables"][0]["run_id"] == "20260101-000000-toy"
    assert doc["stats"]["bootstrap_resamples"] == 100


def test_headers_and_slugs() -> None:
    assert metric_header("ndcg@10") == "NDCG@10"
    assert metric_header("recall@10") == "R@10"
    assert metric_header("mrr") == "MRR"
    assert dataset_slug("/data/letor/OHSUMED/") == "OHSUMED"
    assert dataset_slug("ml-latest-small") == "ml-latest-small"


def test_latex_of_an_empty_document_is_only_the_preamble_comment() -> None:
    tex = render_latex({"generated_by": "ltrbench x", "stats": {"confidence": 0.95}, "tables": []})
    assert tex.startswith("% Generated by ltrbench x")
    assert "\\begin{table}" not in tex


def test_fit_time_is_the_median_and_range_over_seeds_and_repeats_and_marks_contention() -> None:
    from bench.report.build import fit_time_summary
    from bench.report.render import fmt_fit_time

    timings = pd.DataFrame({
        "seed": [0, 1], "fit_s": [2.0, 5.0], "fit_s_repeats": ["1.000000;2.000000;9.000000", "5.000000"],
        "contended": [False, True], "timing": ["isolated", "isolated"],
    })
    got = fit_time_summary(timings)
    # the four fits 1, 2, 9, 5: median 3.5, range 1-9; one contended seed
    assert (got["median"], got["min"], got["max"], got["n"]) == (3.5, 1.0, 9.0, 4)
    assert got["contended"] == 1
    assert got["timing"] == "isolated"
    assert fmt_fit_time(got) == "3.50 [1.00–9.00] †"
    old_run = fit_time_summary(pd.DataFrame({"seed": [0, 1], "fit_s": [0.25, 0.75]}))
    assert old_run["contended"] is None
    assert old_run["timing"] is None
    assert old_run["median"] == 0.5


def test_an_unfinished_run_is_skipped_by_default_and_named(tmp_path: Path) -> None:
    out = tmp_path / "results"
    write_run(out / "runs", "20260101-000000-done")
    later = write_run(out / "runs", "20260102-000000-killed")
    manifest = json.loads((later / "manifest.json").read_text())
    (later / "manifest.json").write_text(json.dumps({**manifest, "finished": None}))
    written = write_leaderboard([out / "runs"], out, options=OPTS, plots=False)
    assert [t["run_id"] for t in written["document"]["tables"]] == ["20260101-000000-done"]
    assert [r.path.name for r in written["skipped"]] == ["20260102-000000-killed"]
    assert "Unfinished run" not in (out / "leaderboard.md").read_text()


def test_an_unfinished_run_used_on_request_is_marked_in_the_table(tmp_path: Path) -> None:
    out = tmp_path / "results"
    run = write_run(out / "runs", "20260102-000000-killed")
    manifest = json.loads((run / "manifest.json").read_text())
    (run / "manifest.json").write_text(json.dumps({**manifest, "finished": None}))
    with pytest.raises(DataError, match="1 unfinished run"):
        write_leaderboard([out / "runs"], out, options=OPTS, plots=False)
    written = write_leaderboard([out / "runs"], out, options=OPTS, plots=False,
                                include_unfinished=True)
    assert written["document"]["tables"][0]["unfinished"] is True
    assert "**Unfinished run**" in (out / "leaderboard.md").read_text()


def test_a_report_that_fails_midway_leaves_the_earlier_four_files_whole(
        results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.report.leaderboard as lb

    write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    names = ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.tex")
    before = {n: (results / n).read_bytes() for n in names}
    write_run(results / "runs", "20260105-000000-newer", models={"a": 0.9, "b": 0.1})
    real_write = lb.write_text
    calls = {"n": 0}

    def fail_on_third(path, text):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:  # md and csv written to the temporary set, then the disk fills
            raise OSError(28, "No space left on device", str(path))
        return real_write(path, text)

    monkeypatch.setattr(lb, "write_text", fail_on_third)
    with pytest.raises(OSError, match="No space"):
        write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    assert {n: (results / n).read_bytes() for n in names} == before
    assert not [p for p in results.iterdir() if p.name.startswith(".set-")]


def test_each_table_says_in_one_line_which_model_is_best(results: Path) -> None:
    written = write_leaderboard([results / "runs"], results, options=OPTS, plots=False)
    table = written["document"]["tables"][0]
    best = table["best_model"]
    primary = OPTS.named_primary()
    mean = next(r for r in table["rows"] if r["model"] == best)["metrics"][primary]["mean"]
    md = (results / "leaderboard.md").read_text()
    assert f"Verdict: best {primary} is {best} ({mean:.4f})" in md


def test_a_model_fitted_instantly_is_a_level_not_a_point_at_a_made_up_time(
        tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from bench.report import plots

    table = {"dataset": "d", "split": "test", "profile": "ltrbench", "primary_metric": "ndcg@10",
             "rows": [
                 {"model": "gbdt", "fit_s": {"median": 2.0, "min": 1.5, "max": 2.5},
                  "metrics": {"ndcg@10": {"mean": 0.6, "std": 0.01}}},
                 {"model": "random", "fit_s": {"median": 0.0, "min": 0.0, "max": 0.0},
                  "metrics": {"ndcg@10": {"mean": 0.1, "std": 0.0}}}]}
    captured: dict[str, object] = {}
    real_save = plots._save

    def keep(fig, path):  # type: ignore[no-untyped-def]
        captured["ax"] = fig.axes[0]
        return real_save(fig, path)

    plots._save = keep  # type: ignore[assignment]
    try:
        assert plots.plot_quality_vs_time(table, tmp_path / "q.png") is not None
    finally:
        plots._save = real_save  # type: ignore[assignment]
    ax = captured["ax"]
    points = [list(line.get_xdata()) for line in ax.get_lines()  # type: ignore[attr-defined]
              if line.get_marker() == "o"]
    assert points == [[2.0]]  # the GBDT at its median time; random is no point (was at 1e-4)
    texts = [t.get_text() for t in ax.texts]  # type: ignore[attr-defined]
    assert any(t.startswith("random (fit < 1 ms)") for t in texts)
    assert ax.get_legend().get_title().get_text() == "y bars: ± std over seeds"  # type: ignore[attr-defined]


def test_write_leaderboard_reports_each_table_step_before_it_starts(results: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    write_leaderboard([results / "runs"], results, options=OPTS, plots=False,
                      progress=lambda text, done, total: seen.append((text, done, total)))
    # One table without plots: its statistics (0 of 1 done), then the end (1 of 1).
    assert seen == [("toy_set: statistics (bootstrap, paired tests)", 0, 1),
                    ("1 leaderboard table(s) written", 1, 1)]


@pytest.mark.parametrize(("fast", "slow"), [(0.3, 6.0), (0.02, 900.0), (1.1, 1.9)])
def test_quality_vs_time_tick_labels_are_plain_numbers_that_do_not_overlap(
        tmp_path: Path, fast: float, slow: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from bench.report import plots

    table = {"dataset": "d", "split": "test", "profile": "ltrbench", "primary_metric": "ndcg@10",
             "rows": [{"model": f"m{i}", "fit_s": {"median": t, "min": t * 0.9, "max": t * 1.1},
                       "metrics": {"ndcg@10": {"mean": 0.6, "std": 0.01}}}
                      for i, t in enumerate((fast, slow))]}
    captured: dict[str, object] = {}
    real_save = plots._save

    def keep(fig, path):  # type: ignore[no-untyped-def]
        captured["fig"] = fig
        return real_save(fig, path)

    plots._save = keep  # type: ignore[assignment]
    try:
        plots.plot_quality_vs_time(table, tmp_path / "q.png")
    finally:
        plots._save = real_save  # type: ignore[assignment]
    fig = captured["fig"]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ax = fig.axes[0]  # type: ignore[attr-defined]
    lo, hi = ax.get_xlim()
    labels = [t for t in ax.xaxis.get_ticklabels(which="both")
              if t.get_visible() and t.get_text() and lo <= t.get_position()[0] <= hi]
    assert len(labels) >= 2  # the axis is labelled at all
    for t in labels:  # plain numbers: '0.5', '2', '100' parse as floats (no 'x10^' forms)
        float(t.get_text())
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    for left, right in itertools.pairwise(boxes):
        assert left.x1 <= right.x0, f"tick labels overlap: {[t.get_text() for t in labels]}"
