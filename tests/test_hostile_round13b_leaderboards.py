"""Hostile round 13b: a team lead writes the memo "LightGBM or XGBoost for our ranker?" from
``ltrbench report`` (its verdict line, p-values, Markdown and LaTeX tables), then attacks the
same surfaces: run files edited by hand, pairs cut, a manifest of another run, blank queries of
one model only, values no metric can take (issue 19: "silently wrong numbers", "silent
accepts", "unclear errors").

Found here (each printed a leaderboard, exit 0, before):

* a query NaN (blank) for one model or seed only, with ``metrics.csv`` edited to its nanmean:
  the models were averaged over different queries and the one with the dropped query was called
  best (0.7500 over 4 queries against 0.7000 over 5; equal on the common 4);
* a model missing one seed (or a model the manifest lists with no rows at all) in a finished
  run whose manifest records no failure: the row was averaged over fewer seeds under a header
  naming all of them;
* NDCG 1.5 or -0.5 in both files, consistent with each other;
* a manifest that names another dataset than the rows, a manifest listing a seed twice.

Oracles: numpy / scipy.stats / exact sign-flip enumeration from the run's own rows, Holm by hand,
"exit 2 and the message names file, row/line and column", input bytes unchanged.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import Res, cli, refused, write_run_tables

FAST = ("--no-plots", "--no-progress", "--bootstrap", "50", "--permutations", "300")
LGB, XGB, RND = "lightgbm-lambdarank", "xgboost-ndcg", "random"
A = [0.9, 0.8, 0.7, 0.95, 0.85, 0.75, 0.6, 0.9]
WORSE = [a - 0.2 - 0.01 * i for i, a in enumerate(A)]
TIED = [a - 0.01 if i % 2 else a + 0.01 for i, a in enumerate(A)]


def write_run(root: Path, rid: str, pq: dict[str, dict[int, list[float]]], *,
              dataset: str = "toy", finished: str = "2026-01-01T00:00:00+00:00",
              metrics: tuple[str, ...] = ("ndcg@10",), manifest: dict | None = None) -> Path:
    """A finished run written as the run loop writes it: ``metrics.csv`` holds the nanmean of
    the per-query values of each (model, seed); ``pq``: model -> seed -> test values."""
    run = root / rid
    run.mkdir(parents=True)
    models = list(pq)
    seeds = sorted({s for per in pq.values() for s in per})
    (run / "config.toml").write_text(
        f'dataset = "{dataset}"\nprofile = "ltrbench"\nmodels = {json.dumps(models)}\n'
        f"seeds = {json.dumps(seeds)}\nquick = true\n")
    man = {"finished": finished, "seeds": seeds, "models": {m: {} for m in models},
           "evaluation": {"profile": "ltrbench"}, "dataset": {"name": dataset}}
    (run / "manifest.json").write_text(json.dumps({**man, **(manifest or {})}))
    p_rows, m_rows, t_rows = [], [], []
    for m, per in pq.items():
        lib = m.split("-")[0] if "-" in m else "baseline"
        for s, vals in per.items():
            for metric in metrics:
                scale = 3.0 if metric.startswith("dcg") else 1.0
                p_rows += [(dataset, m, s, "test", q, metric, float(v) * scale)
                           for q, v in enumerate(vals)]
                m_rows.append((dataset, m, lib, s, "test", metric,
                               float(np.nanmean(vals)) * scale, "ltrbench"))
            t_rows.append((dataset, m, lib, s, 1.0, 0.01, 100.0, 10, 10))
    return write_run_tables(run, m_rows, p_rows, t_rows)


def report(base: Path, *extra: str, runs: str = "runs/r1") -> Res:
    return cli(base, "report", "--runs", runs, "--out", "out", *FAST, *extra)


def board(base: Path) -> dict[str, dict[str, str]]:
    """``leaderboard.csv`` rows by model."""
    text = (base / "out" / "leaderboard.csv").read_text(encoding="utf-8")
    return {r["model"]: r for r in csv.DictReader(io.StringIO(text))}


def exact_sign_flip(d: list[float]) -> float:
    """Two-sided exact paired randomization p-value by enumerating all 2^n sign vectors."""
    obs = abs(math.fsum(d))  # exactly rounded sums: the order of the terms cannot move them
    hits = sum(abs(math.fsum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


def holm_by_hand(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def verdict(base: Path) -> str:
    (line,) = [x for x in (base / "out" / "leaderboard.md").read_text().splitlines()
               if x.startswith("Verdict:")]
    return line


# --- the memo: numbers recomputed from the run's own rows ------------------------------------

@pytest.fixture(scope="module")
def memo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One report over a 3-model, 2-seed, 8-query run: LightGBM best, XGBoost clearly worse
    (every query), random tied with LightGBM on the mean."""
    base = tmp_path_factory.mktemp("memo")
    jitter = [0.0, 0.02, -0.01, 0.01, 0.0, -0.02, 0.01, -0.01]
    write_run(base / "runs", "r1", {
        LGB: {0: A, 1: [a + j for a, j in zip(A, jitter, strict=True)]},
        XGB: {0: WORSE, 1: [w - j for w, j in zip(WORSE, jitter, strict=True)]},
        RND: {0: TIED, 1: TIED}})
    res = report(base)
    assert res.status == 0, res.err
    return base


def _seed_means(base: Path, model: str) -> list[float]:
    m = pd.read_csv(base / "runs" / "r1" / "metrics.csv")
    return list(m[(m["model"] == model) & (m["metric"] == "ndcg@10")]
                .sort_values("seed")["value"])


def _per_query(base: Path, model: str) -> np.ndarray:
    pq = pd.read_parquet(base / "runs" / "r1" / "per_query.parquet")
    pq = pq[(pq["model"] == model) & (pq["metric"] == "ndcg@10")]
    return pq.groupby("qid")["value"].mean().sort_index().to_numpy()


@pytest.mark.parametrize("model", [LGB, XGB, RND])
def test_mean_and_std_are_numpy_over_the_seed_rows_of_metrics_csv(memo: Path, model: str) -> None:
    seeds = _seed_means(memo, model)
    row = board(memo)[model]
    assert float(row["ndcg@10_mean"]) == pytest.approx(np.mean(seeds), abs=1e-9)
    assert float(row["ndcg@10_std"]) == pytest.approx(np.std(seeds, ddof=1), abs=1e-9)


def test_randomization_p_is_the_exact_enumeration_holm_corrected(memo: Path) -> None:
    best = _per_query(memo, LGB)
    raw = [exact_sign_flip(list(best - _per_query(memo, m))) for m in (XGB, RND)]
    assert raw[0] == pytest.approx(2 / 256)
    rows = board(memo)
    for model, want in zip((XGB, RND), holm_by_hand(raw), strict=True):
        assert float(rows[model]["p_randomization"]) == pytest.approx(
            raw[(XGB, RND).index(model)], abs=1e-12)
        assert float(rows[model]["p_randomization_holm"]) == pytest.approx(want, abs=1e-12)


def test_t_test_p_is_scipy_ttest_rel_holm_corrected(memo: Path) -> None:
    best = _per_query(memo, LGB)
    raw = [float(stats.ttest_rel(best, _per_query(memo, m)).pvalue) for m in (XGB, RND)]
    rows = board(memo)
    for model, want in zip((XGB, RND), holm_by_hand(raw), strict=True):
        assert float(rows[model]["p_t_holm"]) == pytest.approx(want, rel=1e-9)


def test_the_verdict_lists_as_undistinguishable_exactly_the_models_with_p_at_least_005(
        memo: Path) -> None:
    line = verdict(memo)
    rows = board(memo)
    same = [m for m in (XGB, RND) if float(rows[m]["p_randomization_holm"]) >= 0.05]
    assert same == [RND]
    assert f"best ndcg@10 is {LGB}" in line, line
    said = line.split("not distinguishable from it (p >= 0.05):")[1]
    assert RND in said, line
    assert XGB not in said, line


def test_markdown_and_latex_print_the_csv_p_values_to_three_decimals(memo: Path) -> None:
    rows = board(memo)
    md = (memo / "out" / "leaderboard.md").read_text()
    tex = (memo / "out" / "leaderboard.tex").read_text()
    for model in (XGB, RND):
        p = f"{float(rows[model]['p_randomization_holm']):.3f}"
        (md_row,) = [x for x in md.splitlines() if x.startswith(f"| {model} |")][:1]
        assert f"| {p} |" in md_row, md_row
        (tex_row,) = [x for x in tex.splitlines() if x.startswith(f"{model} &")]
        assert f"${p}$" in tex_row, tex_row


def test_a_p_value_below_a_thousandth_is_never_printed_as_zero(memo: Path) -> None:
    rows = board(memo)
    assert float(rows[XGB]["p_t_holm"]) < 0.001
    md = (memo / "out" / "leaderboard.md").read_text()
    (row,) = [x for x in md.splitlines() if x.startswith(f"| {XGB} |")][:1]
    assert "<0.001" in row, row
    assert "0.000 |" not in row, row


def test_a_tie_on_the_mean_is_bold_on_both_rows(memo: Path) -> None:
    rows = board(memo)
    assert float(rows[LGB]["ndcg@10_mean"]) == pytest.approx(float(rows[RND]["ndcg@10_mean"]))
    md = (memo / "out" / "leaderboard.md").read_text()
    for model in (LGB, RND):
        (row,) = [x for x in md.splitlines() if x.startswith(f"| {model} |")][:1]
        assert "| **0.8063" in row, row


def test_the_header_counts_the_queries_of_per_query_parquet(memo: Path) -> None:
    n = pd.read_parquet(memo / "runs" / "r1" / "per_query.parquet")["qid"].nunique()
    assert f"· {n} test queries" in (memo / "out" / "leaderboard.md").read_text()
    assert {r["n_queries"] for r in board(memo).values()} == {str(n)}


def test_the_report_left_the_run_files_byte_for_byte(memo: Path, tmp_path: Path) -> None:
    before = digest(memo / "runs")
    res = report(memo, "--html")
    assert res.status == 0, res.err
    assert digest(memo / "runs") == before


# --- degenerate runs a memo might rest on ---------------------------------------------------

def test_one_query_gives_p_one_no_t_test_and_no_winner(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: [0.9], 1: [0.9]}, XGB: {0: [0.1], 1: [0.1]}})
    res = report(tmp_path)
    assert res.status == 0, res.err
    row = board(tmp_path)[XGB]
    assert float(row["p_randomization_holm"]) == 1.0  # 2 sign vectors, both as extreme
    assert row["p_t_holm"] == ""  # n - 1 = 0 degrees of freedom
    assert f"not distinguishable from it (p >= 0.05): {XGB}" in verdict(tmp_path)


def test_two_queries_match_scipy_and_the_enumeration(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: [0.9, 0.8]}, XGB: {0: [0.1, 0.3]}})
    assert report(tmp_path).status == 0
    row = board(tmp_path)[XGB]
    assert float(row["p_randomization_holm"]) == exact_sign_flip([0.8, 0.5]) == 0.5
    assert float(row["p_t_holm"]) == pytest.approx(
        stats.ttest_rel([0.9, 0.8], [0.1, 0.3]).pvalue, rel=1e-9)


def test_two_seeds_with_identical_scores_have_std_zero_not_nan(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: WORSE, 1: WORSE}})
    assert report(tmp_path).status == 0
    for row in board(tmp_path).values():
        assert float(row["ndcg@10_std"]) == 0.0
    assert "0.8063 ± 0.0000" in (tmp_path / "out" / "leaderboard.md").read_text()


def test_identical_models_have_p_one_under_both_tests(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: A}})
    assert report(tmp_path).status == 0
    row = board(tmp_path)[XGB]
    assert float(row["p_randomization_holm"]) == 1.0
    assert float(row["p_t_holm"]) == 1.0


def test_a_model_that_lost_to_random_is_named_below_it_with_its_exact_p(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: WORSE}, RND: {0: A}})
    assert report(tmp_path).status == 0
    line = verdict(tmp_path)
    assert f"best ndcg@10 is {RND}" in line, line
    assert float(board(tmp_path)[LGB]["p_randomization_holm"]) == pytest.approx(
        exact_sign_flip([a - w for a, w in zip(A, WORSE, strict=True)]))
    assert LGB not in line.partition("not distinguishable")[2], line


def test_blank_queries_of_every_model_are_left_out_of_every_mean(tmp_path: Path) -> None:
    blank = [np.nan, *A[1:]]
    worse = [np.nan, *WORSE[1:]]
    write_run(tmp_path / "runs", "r1", {LGB: {0: blank}, XGB: {0: worse}})
    res = report(tmp_path)
    assert res.status == 0, res.err
    assert float(board(tmp_path)[LGB]["ndcg@10_mean"]) == pytest.approx(np.mean(A[1:]))
    assert float(board(tmp_path)[XGB]["p_randomization"]) == pytest.approx(
        exact_sign_flip([a - w for a, w in zip(A[1:], WORSE[1:], strict=True)]))
    assert "(1 blank" in (tmp_path / "out" / "leaderboard.md").read_text()


def test_an_unbounded_metric_above_one_is_not_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}},
              metrics=("ndcg@10", "dcg@10"))
    res = report(tmp_path)
    assert res.status == 0, res.err


# --- a run edited by hand: exit 2, the file, the row/line and the column named ---------------

def _nanmean_metrics(run: Path) -> None:
    """Rewrite ``metrics.csv`` from ``per_query.parquet`` (nanmean), as an editor covering
    their tracks would."""
    pq = pd.read_parquet(run / "per_query.parquet")
    means = pq.groupby(["model", "seed", "metric"])["value"].apply(np.nanmean)
    m = pd.read_csv(run / "metrics.csv")
    m["value"] = [means[(a, b, c)] for a, b, c in zip(m["model"], m["seed"], m["metric"],
                                                      strict=True)]
    m.to_csv(run / "metrics.csv", index=False)


def test_a_query_blank_for_one_model_only_is_refused_not_averaged_over_fewer_queries(
        tmp_path: Path) -> None:
    # equal on queries 1..7; XGBoost's query 0 set to NaN: 0.75 over 4 vs 0.70 over 5 before
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: [0.5, 0.6, 0.7, 0.8, 0.9]},
                                               XGB: {0: [np.nan, 0.6, 0.7, 0.8, 0.9]}})
    before = digest(run)
    res = report(tmp_path)
    assert refused(res, "per_query.parquet", "row 6", "column 'value'", "query 0",
                   repr(XGB), repr(LGB)) is None, res.err
    assert digest(run) == before
    assert not (tmp_path / "out" / "leaderboard.md").exists()


def test_a_query_blank_for_one_seed_only_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A},
                                         XGB: {0: WORSE, 1: [np.nan, *WORSE[1:]]}})
    res = report(tmp_path)
    assert refused(res, "per_query.parquet", "column 'value'", "query 0", "seed 1") is None, \
        res.err


def test_a_per_query_value_set_to_nan_then_means_fixed_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    pq = pd.read_parquet(run / "per_query.parquet")
    pq.loc[(pq["model"] == LGB) & (pq["qid"] == 6), "value"] = np.nan  # its worst query
    pq.to_parquet(run / "per_query.parquet")
    _nanmean_metrics(run)
    res = report(tmp_path)
    assert refused(res, "per_query.parquet", "row 7", "query 6", repr(LGB)) is None, res.err


@pytest.mark.parametrize("value", [1.5, -0.5, 1.0000001])
def test_an_ndcg_outside_zero_one_in_both_files_is_refused(tmp_path: Path, value: float) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: [value] * 8}, XGB: {0: WORSE}})
    before = digest(run)
    res = report(tmp_path)
    assert refused(res, "metrics.csv:2", "column 'value'", repr(value), "ndcg@10",
                   "outside [0, 1]") is None, res.err
    assert digest(run) == before


def test_a_per_query_precision_above_one_is_refused_naming_its_row(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}},
                    metrics=("ndcg@10", "p@10"))
    pq = pd.read_parquet(run / "per_query.parquet")
    i = int(np.flatnonzero(((pq["metric"] == "p@10") & (pq["model"] == XGB)).to_numpy())[2])
    pq.loc[i, "value"] = 2.0
    pq.loc[i + 1, "value"] = pq.loc[i + 1, "value"] - (2.0 - WORSE[2])  # the mean kept
    pq.to_parquet(run / "per_query.parquet")
    res = report(tmp_path)
    assert refused(res, "per_query.parquet", f"row {i + 1}", "column 'value'", "p@10",
                   "outside [0, 1]") is None, res.err


def test_a_seed_cut_from_one_model_is_refused_naming_model_and_seed(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: WORSE, 1: WORSE}})
    for name in ("metrics.csv", "timings.csv"):
        f = pd.read_csv(run / name)
        f[~((f["model"] == XGB) & (f["seed"] == 1))].to_csv(run / name, index=False)
    pq = pd.read_parquet(run / "per_query.parquet")
    pq[~((pq["model"] == XGB) & (pq["seed"] == 1))].to_parquet(run / "per_query.parquet")
    res = report(tmp_path)
    assert refused(res, "metrics.csv", "column 'seed'", repr(XGB), "seed 1",
                   "manifest") is None, res.err


def test_a_model_the_manifest_lists_without_rows_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    man = json.loads((run / "manifest.json").read_text())
    man["models"]["catboost-yetirank"] = {}
    (run / "manifest.json").write_text(json.dumps(man))
    res = report(tmp_path)
    assert refused(res, "metrics.csv", "column 'model'", "'catboost-yetirank'",
                   "manifest") is None, res.err


def test_a_pair_the_manifest_records_as_failed_is_said_in_the_table(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: WORSE}},
                    manifest={"seeds": [0, 1],
                              "failures": {f"{XGB}-seed1": "fit raised ValueError"}})
    assert run.is_dir()
    res = report(tmp_path)
    assert res.status == 0, res.err
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert f"{XGB}: {XGB}-seed1 failed in the run" in md, md
    assert "over seed(s) 0 only" in md
    notes = json.loads((tmp_path / "out" / "leaderboard.json").read_text())["tables"][0]["notes"]
    assert any(f"{XGB}-seed1 failed" in n for n in notes)


def test_a_model_that_failed_in_every_seed_is_named_in_a_note(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}},
              manifest={"models": {LGB: {}, XGB: {}, "catboost-yetirank": {}},
                        "failures": {"catboost-yetirank-seed0": "out of memory"}})
    res = report(tmp_path)
    assert res.status == 0, res.err
    assert "failed in every seed, no row (manifest.json 'failures'): catboost-yetirank" in (
        tmp_path / "out" / "leaderboard.md").read_text()


def test_an_unfinished_run_missing_pairs_is_reported_as_unfinished(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: WORSE}})
    man = json.loads((run / "manifest.json").read_text())
    del man["finished"]
    (run / "manifest.json").write_text(json.dumps(man))
    res = report(tmp_path, "--include-unfinished")
    assert res.status == 0, res.err
    assert "Unfinished run" in (tmp_path / "out" / "leaderboard.md").read_text()


def test_a_manifest_of_another_dataset_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}},
              manifest={"dataset": {"name": "mslr-web10k"}})
    res = report(tmp_path)
    assert refused(res, "metrics.csv:2", "column 'dataset'", "'toy'", "'mslr-web10k'",
                   "manifest") is None, res.err


def test_a_manifest_listing_a_seed_twice_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A, 1: A}, XGB: {0: WORSE, 1: WORSE}},
              manifest={"seeds": [0, 1, 0]})
    res = report(tmp_path)
    assert refused(res, "manifest.json", "[0, 1, 0]", "twice") is None, res.err


def test_metrics_csv_renamed_model_in_one_file_only_is_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    path = run / "metrics.csv"
    path.write_text(path.read_text().replace(XGB, "xgboost-champion"))
    res = report(tmp_path)
    assert refused(res, "metrics.csv:3", "column 'model'", "'xgboost-champion'") is None, res.err


def test_a_model_renamed_consistently_everywhere_is_reported_under_the_new_name(
        tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    for name in ("metrics.csv", "timings.csv", "manifest.json", "config.toml"):
        p = run / name
        p.write_text(p.read_text().replace(XGB, "xgboost-ndcg-v2"))
    pq = pd.read_parquet(run / "per_query.parquet")
    pq["model"] = pq["model"].replace(XGB, "xgboost-ndcg-v2")
    pq.to_parquet(run / "per_query.parquet")
    res = report(tmp_path)
    assert res.status == 0, res.err
    assert float(board(tmp_path)["xgboost-ndcg-v2"]["ndcg@10_mean"]) == pytest.approx(
        np.mean(WORSE))


def test_a_mean_edited_in_metrics_csv_names_line_and_both_values(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    m = pd.read_csv(run / "metrics.csv")
    m.loc[1, "value"] = 0.9  # XGBoost "wins"
    m.to_csv(run / "metrics.csv", index=False)
    res = report(tmp_path)
    assert refused(res, "metrics.csv:3", "column 'value'", "0.9", "(0.5712",
                   "per_query.parquet") is None, res.err


def test_the_newer_run_of_another_config_under_one_name_is_used_and_the_other_named(
        tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r-big", {LGB: {0: A}, XGB: {0: WORSE}, RND: {0: TIED}})
    write_run(tmp_path / "runs", "r-small", {XGB: {0: A}},
              finished="2026-01-02T00:00:00+00:00")
    res = report(tmp_path, runs="runs")
    assert res.status == 0, res.err
    assert "using r-small" in res.err, res.err
    assert "r-big" in res.err, res.err
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert "1 skipped (`r-big`" in md, md


def test_two_runs_of_one_dataset_named_together_are_refused_naming_both(tmp_path: Path) -> None:
    write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    write_run(tmp_path / "runs", "r2", {LGB: {0: WORSE}, XGB: {0: A}},
              finished="2026-01-02T00:00:00+00:00")
    res = cli(tmp_path, "report", "--runs", "runs/r1", "runs/r2", "--out", "out", *FAST)
    assert refused(res, "r1", "r2") is None, res.err


def test_out_pointing_at_the_runs_folder_is_refused_and_nothing_written(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}})
    before = digest(tmp_path / "runs")
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "runs/r1", *FAST)
    assert refused(res, "--out") is None, res.err
    assert digest(tmp_path / "runs") == before
    assert not (run / "leaderboard.md").exists()


# --- the verdict line without paired tests ---------------------------------------------------

@pytest.fixture(scope="module")
def no_per_query(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run without ``per_query.parquet`` (the file lost in a copy): means only, no tests."""
    base = tmp_path_factory.mktemp("nopq")
    run = write_run(base / "runs", "r1", {LGB: {0: A}, XGB: {0: WORSE}, RND: {0: TIED}})
    (run / "per_query.parquet").unlink()
    res = report(base, "--html")
    assert res.status == 0, res.err
    return base


def test_without_per_query_values_no_model_is_called_worse(no_per_query: Path) -> None:
    line = verdict(no_per_query)
    assert "worse" not in line, line  # was: "every other model is worse (p < 0.05)"
    assert "not tested against it" in line, line
    assert XGB in line.partition("not tested against it")[2], line


def test_without_per_query_values_the_verdict_names_no_test(no_per_query: Path) -> None:
    assert "randomization tests" not in verdict(no_per_query)
    html = (no_per_query / "out" / "leaderboard.html").read_text(encoding="utf-8")
    (said,) = [x for x in html.split('<p class="verdict">')[1:2]]
    said = said.split("</p>")[0]
    assert "worse" not in said, said
    assert "not tested against it" in said, said
    assert "randomization tests" not in said, said


def test_with_paired_tests_the_verdict_still_names_them(memo: Path) -> None:
    assert verdict(memo).endswith("(Holm-corrected paired randomization tests).")


def test_without_per_query_values_the_header_does_not_say_zero_queries(no_per_query: Path) -> None:
    md = (no_per_query / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "· 0 test queries" not in md
    assert "test queries not known (no per_query.parquet nor labels.parquet)" in md
