"""Hostile round 19b, persona "timing": a performance reviewer checks that every time ltrbench
prints is honest (README "Fit times you can trust", "Performance"; the busy marker †, the
manifest's timing fields, ``ltrbench perf`` ratios, the leaderboard's fit-time column).

Nothing here times anything for real (no test depends on the machine's load): the clocks and
``/proc/stat`` counters are monkeypatched, the run folders are written by hand. Golden values
are hand arithmetic, written next to each case. Classes: traceback / silently wrong number /
input destroyed / silent accept / unclear error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import api_refused, call, cli, refused

from bench.runners import resources
from bench.runners.resources import Measurement, measure

FIT = "Fit s: median [range]"
FAST = ("--no-plots", "--no-progress", "--bootstrap", "20", "--permutations", "50")
TIMING_COLUMNS = ["dataset", "model", "library", "seed", "fit_s", "predict_s", "peak_rss_mb",
                  "best_iteration", "n_trees", "fit_cpu_s", "other_load", "steal_load",
                  "contended", "timing", "repeats", "fit_s_min", "fit_s_max", "fit_s_repeats"]


# --- helpers -----------------------------------------------------------------------------------

def _clocks(monkeypatch: pytest.MonkeyPatch, wall: list[float], cpu: list[float],
            machine: list[tuple[float, float] | None], cpus: int = 2) -> None:
    """``measure()`` reads these instead of the real clocks and /proc/stat."""
    w, c, m = iter(wall), iter(cpu), iter(machine)
    monkeypatch.setattr(resources, "_wall_clock", lambda: next(w))
    monkeypatch.setattr(resources, "_cpu_clock", lambda: next(c))
    monkeypatch.setattr(resources, "machine_cpu_seconds", lambda: next(m))
    monkeypatch.setattr(resources.os, "cpu_count", lambda: cpus)


def _measured(monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[Measurement | None,
                                                                   BaseException | None]:
    _clocks(monkeypatch, **kw)

    def block() -> Measurement:
        with measure() as m:
            pass
        return m

    return call(block)


def _timing_row(model: str, seed: int, fit_s: Any, *, contended: Any = False,
                timing: str = "inprocess", repeats: str | None = None,
                cpu: float | None = None) -> dict[str, Any]:
    reps = f"{float(fit_s):.6f}" if repeats is None and isinstance(fit_s, float) else repeats
    return {"dataset": "toy", "model": model, "library": "baseline", "seed": seed,
            "fit_s": fit_s, "predict_s": 0.01, "peak_rss_mb": 1.0, "best_iteration": 10,
            "n_trees": 10, "fit_cpu_s": fit_s if cpu is None else cpu, "other_load": 0.01,
            "steal_load": 0.0, "contended": contended, "timing": timing, "repeats": 1,
            "fit_s_min": fit_s, "fit_s_max": fit_s, "fit_s_repeats": reps}


def write_run(root: Path, rid: str, timings: list[dict[str, Any]], *, dataset: str = "toy",
              cpu_model: str | None = None) -> Path:
    """A finished run folder written by hand: 2 models, the seeds the timings name, 6 queries;
    ``m1`` better than ``m2`` on every query."""
    run = root / rid
    (run / "status").mkdir(parents=True)
    models = sorted({t["model"] for t in timings})
    seeds = sorted({int(t["seed"]) for t in timings})
    (run / "config.toml").write_text(
        f'dataset = "{dataset}"\nprofile = "ltrbench"\nmodels = {json.dumps(models)}\n'
        f"seeds = {json.dumps(seeds)}\nquick = true\n", encoding="utf-8")
    env = {} if cpu_model is None else {"environment": {"cpu_model": cpu_model, "cpu_count": 2}}
    man = {"run_id": rid, "finished": "2026-01-01T00:00:00+00:00", "seeds": seeds,
           "models": {m: {"library": "baseline"} for m in models},
           "evaluation": {"profile": "ltrbench", "metrics": ["ndcg@10"]},
           "dataset": {"name": dataset}, "threads": 1, **env}
    (run / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    pq, mrows = [], []
    for i, m in enumerate(models):
        for s in seeds:
            vals = [0.9 - 0.3 * i - 0.01 * q for q in range(6)]
            pq += [(dataset, m, s, "test", q, "ndcg@10", v) for q, v in enumerate(vals)]
            mrows.append((dataset, m, "baseline", s, "test", "ndcg@10", float(np.mean(vals)),
                          "ltrbench"))
            (run / "status" / f"{m}-seed{s}.json").write_text(
                json.dumps({"status": "done", "library": "baseline"}), encoding="utf-8")
    pd.DataFrame(mrows, columns=["dataset", "model", "library", "seed", "split", "metric",
                                 "value", "profile"]).to_csv(run / "metrics.csv", index=False)
    pd.DataFrame(pq, columns=["dataset", "model", "seed", "split", "qid", "metric",
                              "value"]).to_parquet(run / "per_query.parquet")
    pd.DataFrame(timings, columns=TIMING_COLUMNS).to_csv(run / "timings.csv", index=False)
    return run


def _two_models(m1: list[dict[str, Any]] | None = None, **kw: Any) -> list[dict[str, Any]]:
    rows = m1 if m1 is not None else [_timing_row("m1", 0, 1.0)]
    return [*rows, _timing_row("m2", 0, 2.0, **kw)]


def _summary(tmp_path: Path, timings: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    from bench.benchmark.summary import summarize_run, summary_text

    summary = summarize_run(write_run(tmp_path, "r1", timings))
    return summary, summary_text(summary)


def _board(tmp_path: Path, timings: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The leaderboard table (JSON) and its Markdown, built in-process from a hand-written run."""
    from bench.report.build import LeaderboardOptions, build_table
    from bench.report.render import _main_table_lines
    from bench.runs.reader import RunDir

    run = write_run(tmp_path, "r1", timings)
    table = build_table(RunDir(run), "toy",
                        options=LeaderboardOptions(bootstrap_resamples=20,
                                                   randomization_resamples=50))
    return table, "\n".join([*_main_table_lines(table, "95"), *table["notes"]])


def _cell(markdown: str, model: str, column: str) -> str:
    lines = [ln for ln in markdown.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if cells and model in cells[0]:
            return cells[header.index(column)]
    raise AssertionError(f"no row {model!r} in\n{markdown}")


# --- the measurement: clocks and counters (bench/runners/resources.py) ------------------------

def test_wall_clock_going_backwards_is_not_a_negative_fit_time(monkeypatch):
    """silently wrong number: perf_counter 10.0 then 9.0 gave seconds = -1.0, recorded as the fit
    time; a wall time below zero is a broken clock, said, never written."""
    m, exc = _measured(monkeypatch, wall=[10.0, 9.0], cpu=[0.0, 0.5],
                       machine=[(100.0, 0.0), (100.5, 0.0)])
    if exc is None:
        assert m is not None
        assert m.seconds >= 0, f"recorded a wall time of {m.seconds} s"
    else:
        assert api_refused(exc, "clock") is None, api_refused(exc, "clock")


def test_cpu_clock_going_backwards_does_not_invent_other_load(monkeypatch):
    """silently wrong number: process_time 5.0 then 4.0 (cpu_s = -1) made other processes' CPU
    1.0 + 1.0 = 2.0 CPU-s of a 1 s block on 2 CPUs: load 100 %, contended, on an idle machine."""
    m, exc = _measured(monkeypatch, wall=[0.0, 1.0], cpu=[5.0, 4.0],
                       machine=[(100.0, 0.0), (101.0, 0.0)])
    if exc is None:
        assert m is not None
        assert m.cpu_s >= 0, m.cpu_s
        assert not m.contended, m.other_load
    else:
        assert api_refused(exc, "clock") is None, api_refused(exc, "clock")


def test_machine_counters_going_backwards_make_the_load_unknown(monkeypatch):
    """silently wrong number: /proc/stat busy 100 then 50 (another boot's counters, a wrapped
    counter) was clamped to 0 other CPU: 'not contended', a claim nobody measured."""
    m, exc = _measured(monkeypatch, wall=[0.0, 1.0], cpu=[0.0, 1.0],
                       machine=[(100.0, 0.0), (50.0, 0.0)])
    assert exc is None, exc
    assert m is not None
    assert m.other_cpu_s is None, m
    assert m.other_load is None, m


def test_steal_counter_going_backwards_is_unknown_not_zero(monkeypatch):
    """silently wrong number: steal 10 then 4 became steal_s = 0 (max(0, -6))."""
    m, exc = _measured(monkeypatch, wall=[0.0, 1.0], cpu=[0.0, 1.0],
                       machine=[(100.0, 10.0), (101.0, 4.0)])
    assert exc is None, exc
    assert m is not None
    assert m.steal_s is None, m
    assert m.steal_load is None, m


def test_own_cpu_beyond_wall_times_cpus_makes_the_load_unknown(monkeypatch):
    """silently wrong number: a 1 s block on 2 CPUs cannot use 5 CPU-s; the counters are not
    this machine's (or not this block's), so 'other load 0 %' is no measurement."""
    m, exc = _measured(monkeypatch, wall=[0.0, 1.0], cpu=[0.0, 5.0],
                       machine=[(100.0, 0.0), (105.0, 0.0)])
    assert exc is None, exc
    assert m is not None
    assert m.other_load is None, m
    assert not m.contended, m


def test_busy_flag_golden_on_four_cpus(monkeypatch):
    """2 s block on 4 CPUs, own 2 CPU-s; others 1.3 CPU-s -> 1.3 / 8 = 0.1625 > 0.15: busy;
    others 1.1 CPU-s -> 0.1375: clean."""
    m, _ = _measured(monkeypatch, wall=[0.0, 2.0], cpu=[0.0, 2.0],
                     machine=[(10.0, 0.0), (13.3, 0.0)], cpus=4)
    assert m is not None
    assert m.other_load == pytest.approx(0.1625)
    assert m.contended
    m2, _ = _measured(monkeypatch, wall=[0.0, 2.0], cpu=[0.0, 2.0],
                      machine=[(10.0, 0.0), (13.1, 0.0)], cpus=4)
    assert m2 is not None
    assert m2.other_load == pytest.approx(0.1375)
    assert not m2.contended


def test_measurement_with_zero_cpus_is_not_a_traceback():
    """traceback: Measurement(cpus=0).other_load divided by zero (ZeroDivisionError)."""
    _got, exc = call(lambda: Measurement(seconds=1.0, other_cpu_s=0.5, steal_s=0.1, cpus=0)
                    .contended)
    assert exc is None or api_refused(exc, "cpus") is None, repr(exc)


def test_nan_wall_time_has_unknown_load_not_nan():
    """silently wrong number: seconds NaN gave other_load NaN (not None: JSON 'NaN')."""
    m = Measurement(seconds=float("nan"), other_cpu_s=1.0, steal_s=0.0, cpus=2)
    assert m.other_load is None
    assert m.steal_load is None
    assert not m.contended


# --- one (model, seed)'s record (bench/benchmark/record.py) ------------------------------------

def test_fit_timing_busy_when_any_repeat_was_and_load_is_the_largest():
    from bench.benchmark.record import FitTiming

    quiet = Measurement(seconds=1.0, cpu_s=1.0, other_cpu_s=0.1, steal_s=0.0, cpus=2)  # 5 %
    busy = Measurement(seconds=2.0, cpu_s=2.0, other_cpu_s=1.6, steal_s=0.0, cpus=2)  # 40 %
    t = FitTiming.of("inprocess", [quiet, busy, quiet], 0.0)
    assert t.contended
    assert t.other_load == pytest.approx(0.4)
    assert t.median == 1.0
    assert t.seconds == (1.0, 2.0, 1.0)


def test_a_sub_microsecond_fit_is_not_written_as_zero_in_the_repeats_column():
    """silently wrong number: fit_s_repeats was written with 6 decimals, so a 4e-7 s fit became
    '0.000000', and the leaderboard (which reads that column first) showed a median of 0."""
    from hostile_kit import toy_splits

    from bench.benchmark.config import RunConfig
    from bench.benchmark.record import FitTiming, pair_tables
    from bench.runners.result import FitResult

    splits = toy_splits()
    r = FitResult(model="random", library="baseline", seed=0,
                  scores={s: np.zeros(getattr(splits, s).n_rows) for s in ("train", "vali", "test")},
                  fit_s=4e-7)
    t = FitTiming("inprocess", (4e-7, 5e-7, 3e-7), (0.0, 0.0, 0.0), None, None, False)
    row = pair_tables(RunConfig(dataset="synthetic", models=("random",), seeds=(0,)),
                      splits, r, t)["timings.csv"].iloc[0]
    back = [float(x) for x in str(row["fit_s_repeats"]).split(";")]
    assert back == pytest.approx([4e-7, 5e-7, 3e-7], rel=1e-6), row["fit_s_repeats"]


def test_manifest_threads_0_is_recorded_as_the_cpus_used(monkeypatch):
    """n_threads = 0 means every usable CPU: the manifest must record the number (3 here), not 0."""
    from bench.benchmark import record
    from bench.benchmark.config import RunConfig
    from bench.runners import params as params_mod

    monkeypatch.setattr(params_mod, "usable_cpus", lambda *a, **k: 3)
    cfg = RunConfig.from_dict({"dataset": "synthetic", "models": ["random"], "seeds": [0],
                               "params": {"n_threads": 0}})
    got = record.timing_manifest(cfg)
    assert got["library_threads"] == 3


@pytest.mark.parametrize("value", ["2", -1, 1025, 2.5, True])
def test_a_thread_count_that_is_not_a_count_is_refused(value):
    """silent accept: a thread count recorded that the libraries cannot use."""
    from bench.benchmark.config import RunConfig

    exc = call(lambda: RunConfig.from_dict({"dataset": "synthetic", "models": ["random"],
                                            "seeds": [0], "params": {"n_threads": value}}))[1]
    assert api_refused(exc, "n_threads") is None, api_refused(exc, "n_threads")


def test_timing_isolated_with_a_cluster_engine_is_refused():
    from bench.benchmark.config import RunConfig

    exc = call(lambda: RunConfig.from_dict({"dataset": "synthetic", "models": ["random"],
                                            "seeds": [0], "timing": "isolated",
                                            "engine": "dask"}))[1]
    assert api_refused(exc, "isolated") is None, api_refused(exc, "isolated")


@pytest.mark.parametrize("value", [0, -1, "3"])
def test_timing_repeats_that_cannot_be_honoured_are_refused(value):
    from bench.benchmark.config import RunConfig

    exc = call(lambda: RunConfig.from_dict({"dataset": "synthetic", "models": ["random"],
                                            "seeds": [0], "timing_repeats": value}))[1]
    assert api_refused(exc, "timing_repeats") is None, api_refused(exc, "timing_repeats")


def test_timing_mode_spelled_otherwise_is_refused():
    """silent accept: 'Isolated' or 'subprocess' must not run in-process under another name."""
    from bench.benchmark.config import RunConfig

    doc = {"dataset": "synthetic", "models": ["random"], "seeds": [0], "timing": "subprocess"}
    exc = call(lambda: RunConfig.from_dict(doc))[1]
    assert api_refused(exc, "timing") is None, api_refused(exc, "timing")
    # round 23b, one rule for a choice on every door: 'Isolated' is isolated (never in-process),
    # said once
    with pytest.warns(UserWarning, match="'Isolated' read as 'isolated'"):
        config = RunConfig.from_dict({**doc, "timing": "Isolated"})
    assert config.timing == "isolated"


# --- the run summary (bench/benchmark/summary.py) ----------------------------------------------

def test_run_summary_does_not_print_0_00_for_a_4_ms_fit(tmp_path):
    """silently wrong number: a 0.004 s fit printed '0.00' in the 'fit s' column."""
    _, text = _summary(tmp_path, _two_models([_timing_row("m1", 0, 0.004)]))
    row = next(ln for ln in text.splitlines() if ln.startswith("m1"))
    assert "0.004" in row or "<0.01" in row, row


def test_run_summary_counts_busy_seeds_and_marks_the_row(tmp_path):
    """seeds 0,1,2 fit 1, 2, 9 s, seed 1 busy: median 2.0, contended 1, † and the note."""
    rows = [_timing_row("m1", s, t, contended=c)
            for s, t, c in ((0, 1.0, False), (1, 2.0, True), (2, 9.0, False))]
    summary, text = _summary(tmp_path, rows + [_timing_row("m2", s, 1.0) for s in (0, 1, 2)])
    assert summary["timings"]["m1"]["fit_s"] == 2.0
    assert summary["timings"]["m1"]["contended"] == 1
    assert summary["timings"]["m2"]["contended"] == 0
    row = next(ln for ln in text.splitlines() if ln.startswith("m1"))
    assert row.rstrip().endswith("2.00 †"), row
    assert "† fit timed while other processes" in text


@pytest.mark.parametrize("flag", ["yes", "busy", "2"])
def test_a_busy_flag_that_is_not_true_or_false_is_refused(tmp_path, flag):
    """silent accept: contended 'yes' was counted as not busy (only 'true'/'1' counted)."""
    from bench.benchmark.summary import summarize_run

    run = write_run(tmp_path, "r1", _two_models([_timing_row("m1", 0, 1.0, contended=flag)]))
    exc = call(lambda: summarize_run(run))[1]
    assert api_refused(exc, "timings.csv", "contended") is None, \
        api_refused(exc, "timings.csv", "contended")


def test_negative_fit_time_in_a_run_file_is_refused(tmp_path):
    """silent accept: fit_s -1.5 in timings.csv was shown as '-1.50' s."""
    from bench.benchmark.summary import summarize_run

    run = write_run(tmp_path, "r1", _two_models([_timing_row("m1", 0, -1.5)]))
    exc = call(lambda: summarize_run(run))[1]
    assert api_refused(exc, "timings.csv", "fit_s", ":2") is None, \
        api_refused(exc, "timings.csv", "fit_s", ":2")


def test_negative_cpu_time_in_a_run_file_is_refused(tmp_path):
    from bench.benchmark.summary import summarize_run

    run = write_run(tmp_path, "r1", _two_models([_timing_row("m1", 0, 1.0, cpu=-0.2)]))
    exc = call(lambda: summarize_run(run))[1]
    assert api_refused(exc, "timings.csv", "fit_cpu_s") is None, \
        api_refused(exc, "timings.csv", "fit_cpu_s")


# --- the leaderboard (bench/report) ------------------------------------------------------------

def test_leaderboard_does_not_print_0_00_for_a_4_ms_fit(tmp_path):
    """silently wrong number: median 0.004 s printed '0.00' in 'Fit s'."""
    from bench.report.render import fmt_fit_time

    cell = fmt_fit_time({"median": 0.004, "min": 0.004, "max": 0.004, "n": 1, "contended": 0})
    assert cell != "0.00", cell
    assert "0.004" in cell or "<0.01" in cell, cell
    spread = fmt_fit_time({"median": 0.004, "min": 0.001, "max": 0.5, "n": 3, "contended": 0})
    assert re.search(r"(?<![\d.])0\.00(?!\d)", spread) is None, spread


def test_leaderboard_latex_does_not_print_0_00_for_a_4_ms_fit():
    from bench.report.render import fmt_fit_time

    cell = fmt_fit_time({"median": 0.0004, "min": 0.0004, "max": 0.0004, "n": 1})
    assert cell not in ("0.00", "0.000"), cell


def test_a_zero_fit_time_stays_zero():
    """a baseline with nothing to fit: 0 s is 0, not '<0.01'."""
    from bench.report.render import fmt_fit_time

    assert fmt_fit_time({"median": 0.0, "min": 0.0, "max": 0.0, "n": 1}) == "0.00"


def test_text_in_the_repeats_column_is_a_clear_error_not_a_traceback(tmp_path):
    """traceback: fit_s_repeats '1.0;abc' raised ValueError out of the leaderboard."""
    from bench.report.build import fit_time_summary

    frame = pd.DataFrame([_timing_row("m1", 0, 1.0, repeats="1.0;abc")])
    exc = call(lambda: fit_time_summary(frame))[1]
    assert api_refused(exc, "fit_s_repeats", "abc") is None, \
        api_refused(exc, "fit_s_repeats", "abc")


def test_a_negative_repeat_is_refused_not_averaged(tmp_path):
    """silent accept: repeats '1.0;-2.0' gave a median fit time of -0.5 s."""
    from bench.report.build import fit_time_summary

    frame = pd.DataFrame([_timing_row("m1", 0, 1.0, repeats="1.0;-2.0")])
    got, exc = call(lambda: fit_time_summary(frame))
    assert api_refused(exc, "fit_s_repeats", "-2") is None, f"accepted: {got}"


def test_one_busy_seed_beside_one_unrecorded_seed_keeps_the_dagger():
    """silently wrong number: seed 0 busy, seed 1 with no flag (an older run resumed): the count
    became None (unknown) and the † vanished, though one fit is known to be busy."""
    from bench.report.build import fit_time_summary

    frame = pd.DataFrame([_timing_row("m1", 0, 1.0, contended=True),
                          _timing_row("m1", 1, 2.0, contended=None)])
    got = fit_time_summary(frame)
    assert got["contended"] == 1, got
    assert got["median"] == 1.5


def test_leaderboard_marks_the_busy_row_and_counts_one_fit(tmp_path):
    """seeds 0, 1 of m2 fit 2 and 4 s, seed 1 busy: m2's cell '3.00 [2.00–4.00] †' and the
    note '† 1 fit(s)'; m1 clean: no †."""
    rows = [_timing_row("m1", s, 1.0) for s in (0, 1)]
    rows += [_timing_row("m2", 0, 2.0), _timing_row("m2", 1, 4.0, contended=True)]
    _table, md = _board(tmp_path, rows)
    assert _cell(md, "m2", FIT) == "3.00 [2.00–4.00] †"
    assert "†" not in _cell(md, "m1", FIT)
    assert "† 1 fit(s)" in md


def test_json_and_markdown_fit_times_are_the_same_seconds(tmp_path):
    """units: leaderboard.json fit_s in seconds (1.25), the Markdown 'Fit s' column the same."""
    rows = [_timing_row("m1", 0, 1.25), _timing_row("m2", 0, 0.5)]
    table, md = _board(tmp_path, rows)
    fit = {r["model"]: r["fit_s"] for r in table["rows"]}
    assert fit["m1"]["median"] == 1.25
    assert fit["m2"]["median"] == 0.5
    assert _cell(md, "m1", FIT) == "1.25"
    assert _cell(md, "m2", FIT) == "0.50"


def test_a_row_mixing_timing_modes_is_said(tmp_path):
    """silent accept: --resume with another --timing (timing is not in the config hash) left one
    model's fits half in-process, half isolated; the Markdown gave their median as one figure."""
    rows = [_timing_row("m1", 0, 1.0), _timing_row("m1", 1, 3.0, timing="isolated")]
    rows += [_timing_row("m2", s, 1.0) for s in (0, 1)]
    _table, md = _board(tmp_path, rows)
    assert "isolated" in md, md
    assert "inprocess" in md.replace("in-process", "inprocess"), md


def test_rows_timed_in_different_modes_are_said(tmp_path):
    rows = [_timing_row("m1", 0, 1.0, timing="isolated"), _timing_row("m2", 0, 2.0)]
    _table, md = _board(tmp_path, rows)
    assert "isolated" in md, md


def test_report_over_runs_from_two_cpu_models_says_so(tmp_path):
    """silent accept: two runs measured on different CPUs in one leaderboard.md, fit times side
    by side, nothing naming either machine."""
    rows = _two_models()
    write_run(tmp_path / "runs", "r1", rows, dataset="toy", cpu_model="Intel Xeon Gold 6130")
    write_run(tmp_path / "runs", "r2", rows, dataset="toy2", cpu_model="AMD EPYC 7B13")
    res = cli(tmp_path, "report", "--runs", "runs/r1", "runs/r2", "--out", "out", *FAST)
    assert res.status == 0, res.err[-400:]
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "Intel Xeon Gold 6130" in md, md[-800:]
    assert "AMD EPYC 7B13" in md, md[-800:]


def test_report_refuses_a_negative_fit_time_from_the_command_line(tmp_path):
    """silent accept via the CLI: exit 2, one error line naming timings.csv and fit_s."""
    write_run(tmp_path / "runs", "r1", _two_models([_timing_row("m1", 0, -3.0)]))
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    assert refused(res, "timings.csv", "fit_s") is None, refused(res, "timings.csv", "fit_s")


# --- ltrbench perf ratios (bench/perf) --------------------------------------------------------

def _evaluator_report(**seconds: float) -> Any:
    from bench.perf import evaluator as ev

    rep = ev.Report(n_queries=100, n_docs=1000)
    names = {"ours": ev.OURS, "ours_mt": ev.OURS_MT, "lgb_mt": ev.LGB_MT, "xgb": ev.XGB,
             "ours_xgb": ev.OURS_XGB, "pytrec": "pytrec_eval end to end (8 metrics)"}
    for key, s in seconds.items():
        rep.rows.append(ev.Row(names[key], s))
    return rep


def test_evaluator_ratio_golden():
    """0.36 s against LightGBM's 0.643 s in turns: 0.36 / 0.643 = 0.5599 -> '0.56x'."""
    from bench.perf.evaluator import render

    text = render(_evaluator_report(ours=0.5, ours_mt=0.36, lgb_mt=0.643))
    assert "**0.56x**" in text


def test_evaluator_ratio_with_a_zero_peer_time_is_not_a_traceback():
    """traceback: a peer timed at 0 s (a timer too coarse, a skipped call) divided by zero."""
    from bench.perf.evaluator import render

    text, exc = call(lambda: render(_evaluator_report(ours=0.5, ours_mt=0.36, lgb_mt=0.0)))
    assert exc is None, repr(exc)
    assert "inf" not in text.lower().replace("information", "")


def test_evaluator_slower_peer_over_a_zero_reference_is_not_a_traceback():
    from bench.perf.evaluator import render

    _text, exc = call(lambda: render(_evaluator_report(ours=0.0, pytrec=49.0)))
    assert exc is None, repr(exc)


def test_evaluator_ratio_with_a_missing_peer_prints_no_ratio():
    from bench.perf.evaluator import render

    text = render(_evaluator_report(ours=0.5, ours_mt=0.36))
    assert "LightGBM built-in ndcg@10**" not in text
    assert "/ LightGBM built-in ndcg@10:" not in text


def _runner_times(bare: list[float], other: list[float]) -> dict[tuple[str, str], list[dict]]:
    from bench.perf.runners import VARIANTS

    out = {("lightgbm", "bare"): [{"fit_s": b, "other_load": 0.01, "steal": 0.0,
                                   "contended": False} for b in bare]}
    for v in VARIANTS:
        if v != "bare":
            out[("lightgbm", v)] = [{"fit_s": s, "other_load": 0.01, "steal": 0.0,
                                     "contended": False} for s in other]
    return out


def _runner_render(bare: list[float], other: list[float]) -> str:
    from bench.perf.runners import VARIANTS, render

    args = argparse.Namespace(rows=1000, trees=10, leaves=7, threads=1, repeat=len(bare))
    ndcg = {("lightgbm", v): 0.5 for v in VARIANTS} | {("lightgbm", "bare"): 0.5}
    return render(args, ["lightgbm"], _runner_times(bare, other), ndcg, ["0 0 0", "0 0 0"])


def test_runners_paired_ratio_golden():
    """turns: variant 2, 3, 4 s against bare 1, 2, 4 s -> ratios 2, 1.5, 1 -> median 1.500
    (the ratio of medians would be 3 / 2 = 1.5 too; bare 1, 2, 8 separates them: 2, 1.5, 0.5
    -> 1.500 paired, 3 / 2 = 1.5 unpaired; use 1, 3, 8: 2, 1, 0.5 -> 1.000 paired)."""
    text = _runner_render([1.0, 3.0, 8.0], [2.0, 3.0, 4.0])
    assert "| 1.000 |" in text, text
    assert "1.000x bare" in text, text


def test_runners_ratio_with_a_zero_bare_time_is_not_a_traceback():
    """traceback: a bare fit timed at 0 s divided by zero in the paired ratio."""
    _got, exc = call(lambda: _runner_render([0.0, 1.0, 1.0], [1.0, 1.0, 1.0]))
    assert exc is None, repr(exc)


def test_a_nan_turn_is_not_a_met_target_in_the_runners_table():
    """silently wrong number: one turn timed NaN gave a range 'nan–nan', a paired median of
    1.000 (statistics.median over a NaN) and the verdict 'meets'; a turn without a time must
    be said, never pass."""
    got, exc = call(lambda: _runner_render([1.0, 1.0, 1.0], [float("nan"), 1.0, 1.0]))
    assert exc is None, repr(exc)
    assert "nan" not in got.lower(), got
    assert "meets" not in got, got
