"""Round 15, hostile cases of a skeptical reviewer of a paper that cites an ltrbench leaderboard:
they reproduce a table, then poke at the evidence behind it -- edit a run's files, swap two
runs' folders, copy a config from another run, resume under other library versions, name a run
twice, run ``report`` and ``crosscheck`` over damaged or mixed runs, kill a write half way (a
monkeypatched fault, in-process), and compare the printed numbers with hand arithmetic.

Found here (failing on the base):

* ``crosscheck --run R`` of a run with no LightGBM/XGBoost/CatBoost model (only ``random``)
  exited 1 ("FAILED (0 checks)") and wrote a report, although nothing was wrong with the run:
  now exit 2 and "nothing to cross-check", as ``--models random`` already was;
* ``report --tuned T`` of a finished tune without ``summary.json`` (or without a model's entry)
  printed the trials table with an empty budget and sampler without a word;
* ``report --runs R R`` (or ``R R/``, a link to R, R's id) was read as one R without a word;
* ``run --resume`` of a run started under other package versions (numpy, LightGBM, ltrbench
  itself) went on and mixed two versions' results under a manifest naming only the first;
* a ``timings.csv`` row renamed to a model (or seed) the run never trained was read: the
  model's fit time column went blank and nothing was said;
* two run folders swapped (a folder named like run A holding run B), and a ``config.toml``
  copied from another run, were read under the folder's name without a word;
* a cross-check of a run whose ``evallog.csv`` was deleted said "OK" with the eval log's check
  silently skipped.

Oracles: exit 2 with an ``error:`` line naming the file, option or key; input bytes unchanged;
hand arithmetic of NDCG@10 (exp2 gain) from the run's own labels and scores; a clean run's
bytes. Everything runs in-process through ``tests/hostile_kit.py``; two module fixtures build
the runs once (one ``random`` run, one LightGBM run of 3 trees).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.hostile_kit import Res, cli, letor_folder, snapshot, untouched
from tests.tuning_fixture import make_tune_folder


def _refused(r: Res, *words: str) -> str:
    assert not r.traceback, r.err
    assert r.status == 2, (r.status, r.err[-800:], r.out[-400:])
    errs = [ln for ln in r.err.splitlines() if ln.startswith("error:")]
    assert errs, r.err
    for w in words:
        assert w in errs[0], (w, errs[0])
    return errs[0]


def _ok(r: Res) -> Res:
    assert not r.traceback, r.err
    assert r.status == 0, (r.err[-800:], r.out[-400:])
    return r


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reviewer")
    letor_folder(root / "data")
    return root


def _run(work: Path, out: str, *options: str) -> Path:
    r = _ok(cli(work, "run", "--dataset", "data", "--seeds", "0", "--quick", "--out", out,
                "--no-progress", "--format", "json", *options))
    return work / json.loads(r.out)["run_dir"]


@pytest.fixture(scope="module")
def rand(work: Path) -> Path:
    """A finished run of ``random`` only (no library model)."""
    return _run(work, "res", "--models", "random")


@pytest.fixture(scope="module")
def rand2(work: Path, rand: Path) -> Path:
    """A second finished ``random`` run of the same dataset, another seed."""
    r = _ok(cli(work, "run", "--dataset", "data", "--seeds", "1", "--quick", "--out", "res",
                "--no-progress", "--format", "json", "--models", "random"))
    return work / json.loads(r.out)["run_dir"]


@pytest.fixture(scope="module")
def gbdt(work: Path) -> Path:
    """A finished run of LightGBM (3 trees) and ``random``."""
    return _run(work, "res-lgb", "--models", "lightgbm,random", "--n-trees", "3",
                "--no-crosscheck")


def _copy(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest)
    return dest


def _copy_results(run: Path, tmp: Path) -> Path:
    """The run inside a fresh results folder (``tmp/res/runs/<id>``), for ``--resume``."""
    return _copy(run, tmp / "res" / "runs" / run.name)


def _unfinish(run: Path, **changes: Any) -> None:
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["finished"] = None
    for dotted, value in changes.items():
        holder = manifest
        *parents, key = dotted.split(".")
        for p in parents:
            holder = holder[p]
        holder[key] = value
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _report(cwd: Path, *args: str) -> Res:
    return cli(cwd, "report", *args, "--no-plots", "--no-progress")


# --- leftover 1: crosscheck of a run without a library model ------------------------------------


def test_crosscheck_of_a_run_without_a_library_model_is_a_user_error_naming_its_models(
        rand: Path, tmp_path: Path) -> None:
    line = _refused(cli(tmp_path, "crosscheck", "--run", str(rand), "--out", "cc"),
                    "nothing to cross-check", "random (baseline)", "--run")
    assert "LightGBM" in line
    assert not (tmp_path / "cc").exists()  # no "FAILED (0 checks)" report written


def test_crosscheck_json_of_a_run_without_a_library_model_prints_no_half_document(
        rand: Path, tmp_path: Path) -> None:
    r = cli(tmp_path, "crosscheck", "--run", str(rand), "--out", "cc", "--format", "json")
    _refused(r, "nothing to cross-check")
    assert r.out.strip() == ""


def test_crosscheck_of_a_manifestless_random_run_still_says_nothing_to_check(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "copy")
    (run / "manifest.json").unlink()
    _refused(cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc"),
             "nothing to cross-check", "random")


def test_crosscheck_of_a_run_with_a_library_model_still_exits_0(
        gbdt: Path, tmp_path: Path) -> None:
    r = _ok(cli(tmp_path, "crosscheck", "--run", str(gbdt), "--out", "cc", "--format", "json"))
    doc = json.loads(r.out)
    assert doc["ok"] is True
    assert {c["model"] for c in doc["checks"]} == {"lightgbm-lambdarank"}
    assert not [n for n in doc["notes"] if "eval log" in n], doc["notes"]


# --- leftover 2: report --tuned over a tune folder without its summary --------------------------


@pytest.fixture(scope="module")
def tune_once(work: Path) -> Path:
    return make_tune_folder(work / "tune", models=("lightgbm-lambdarank",), n_trials=2)


@pytest.fixture
def tune(tune_once: Path, tmp_path: Path) -> Path:
    """A copy of a finished tune folder (one model, 2 trials) to damage."""
    return _copy(tune_once, tmp_path / "tune")


def test_tuned_report_of_a_finished_tune_without_summary_json_names_the_file(
        tune: Path, rand: Path, rand2: Path, tmp_path: Path) -> None:
    (tune / "summary.json").unlink()
    before = snapshot(tune)
    _refused(_report(tmp_path, "--tuned", str(tune), "--runs", str(rand), str(rand2),
                     "--out", "rt"), "summary.json", "complete")
    assert untouched(before, tune) is None


def test_tuned_report_of_a_summary_without_a_model_of_the_trials_names_the_model(
        tune: Path, rand: Path, rand2: Path, tmp_path: Path) -> None:
    doc = json.loads((tune / "summary.json").read_text())
    doc["models"] = {}
    (tune / "summary.json").write_text(json.dumps(doc))
    _refused(_report(tmp_path, "--tuned", str(tune), "--runs", str(rand), str(rand2),
                     "--out", "rt"), "summary.json", "lightgbm-lambdarank")


def test_an_unfinished_tune_without_a_summary_is_read_with_its_note(tune: Path) -> None:
    from bench.report.tuning import read_tune_dir

    (tune / "summary.json").unlink()
    (tune / "complete").unlink()
    folder = read_tune_dir(tune)  # a killed tune has no summary yet: not an error
    assert not folder.finished
    assert folder.models == ["lightgbm-lambdarank"]


# --- leftover 3: one run named twice ------------------------------------------------------------


def test_report_runs_naming_one_run_twice_is_refused(rand: Path, tmp_path: Path) -> None:
    _refused(_report(tmp_path, "--runs", str(rand), str(rand), "--out", "rep"),
             "--runs", "twice", rand.name)
    assert not (tmp_path / "rep" / "leaderboard.md").exists()


def test_report_runs_naming_one_run_with_a_trailing_slash_is_refused(
        rand: Path, tmp_path: Path) -> None:
    _refused(_report(tmp_path, "--runs", str(rand), str(rand) + os.sep, "--out", "rep"),
             "twice")


def test_report_runs_naming_a_run_and_a_link_to_it_is_refused(rand: Path, tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(rand)
    _refused(_report(tmp_path, "--runs", str(rand), "link", "--out", "rep"), "twice", "link")


def test_report_runs_naming_a_run_by_path_and_by_id_is_refused(
        work: Path, rand: Path) -> None:
    r = _report(work, "--runs", str(rand), rand.name, "--out", "res")
    _refused(r, "twice", rand.name)


def test_report_runs_naming_one_folder_of_runs_twice_is_refused(
        work: Path, rand: Path, tmp_path: Path) -> None:
    runs = work / "res" / "runs"
    _refused(_report(tmp_path, "--runs", str(runs), str(runs), "--out", "rep"), "twice")


def test_report_runs_naming_two_distinct_runs_of_one_dataset_is_still_the_old_error(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    _refused(_report(tmp_path, "--runs", str(rand), str(rand2), "--out", "rep"),
             "names 2 runs")


def test_tuned_report_with_one_run_as_default_and_tuned_is_refused(
        tune: Path, rand: Path, tmp_path: Path) -> None:
    _refused(_report(tmp_path, "--tuned", str(tune), "--runs", str(rand), str(rand),
                     "--out", "rt"), "twice", "DEFAULT_RUN TUNED_RUN")


# --- resume under other versions ----------------------------------------------------------------


@pytest.mark.parametrize(("dotted", "value", "named"), [
    ("environment.packages.numpy", "1.0.0", "numpy 1.0.0 there"),
    ("environment.packages.lightgbm", "3.3.5", "lightgbm 3.3.5 there"),
    ("environment.packages.scipy", "0.1", "scipy 0.1 there"),
    ("ltrbench_version", "0.0.1", "ltrbench 0.0.1 there"),
])
def test_resume_under_other_recorded_versions_is_refused_naming_the_package(
        rand: Path, tmp_path: Path, dotted: str, value: str, named: str) -> None:
    run = _copy_results(rand, tmp_path)
    _unfinish(run, **{dotted: value})
    before = snapshot(run)
    line = _refused(cli(tmp_path, "run", "--resume", str(run), "--no-progress"),
                    named, "now", run.name)
    assert "start a new run" in line
    assert untouched(before, run) is None  # the run left as it was, still unfinished


def test_resume_of_a_run_that_recorded_no_package_versions_goes_on(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["environment"]["packages"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    _unfinish(run)
    _ok(cli(tmp_path, "run", "--resume", str(run), "--no-progress"))
    assert json.loads((run / "manifest.json").read_text())["finished"]


def test_resume_in_the_same_environment_is_bit_identical_to_the_finished_run(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    metrics = (run / "metrics.csv").read_bytes()
    _unfinish(run)
    _ok(cli(tmp_path, "run", "--resume", str(run), "--no-progress"))
    assert (run / "metrics.csv").read_bytes() == metrics


def test_resume_with_another_seed_option_is_refused_naming_the_hashes(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    _unfinish(run)
    _refused(cli(tmp_path, "run", "--resume", str(run), "--seeds", "5", "--no-progress"),
             "config differs", "hash")


# --- timings.csv edited ---------------------------------------------------------------------------


def test_report_over_a_timings_row_renamed_to_an_untrained_model_names_the_line(
        gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    text = (run / "timings.csv").read_text()
    (run / "timings.csv").write_text(text.replace("lightgbm-lambdarank,", "xgboost-ndcg,", 1))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"),
             "timings.csv:2", "'xgboost-ndcg'", "model")


def test_report_over_a_timings_row_with_a_seed_the_run_never_had_names_the_seed(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    frame = pd.read_csv(run / "timings.csv")
    frame.loc[0, "seed"] = 7
    frame.to_csv(run / "timings.csv", index=False)
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "timings.csv:2", "seed 7")


# --- a run folder that holds another run's files ---------------------------------------------------


def test_swapped_run_folders_are_named_in_the_table_and_on_stderr(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _copy(rand, runs / rand2.name)  # the folder named like run 2 holds run 1
    r = _ok(_report(tmp_path, "--runs", str(runs / rand2.name), "--out", "rep", "--format",
                    "json"))
    notes = json.loads(r.out)["tables"][0]["notes"]
    said = [n for n in notes if "named like run" in n]
    assert said, notes
    assert rand.name in said[0], said
    assert rand2.name in said[0], said
    assert "swapped" in r.err


def test_a_config_copied_from_another_run_of_other_seeds_is_refused(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    shutil.copy(rand2 / "config.toml", run / "config.toml")
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "config.toml", "seeds = [1]",
             "records [0]")


def test_a_config_copied_from_another_run_of_the_same_seeds_is_named(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    lines = (run / "config.toml").read_text().splitlines(keepends=True)
    other = "# ltrbench run config (resolved); run data-20260101T000000Z-0123abcd; hash 0123abcd4567\n"
    text = "".join([other, *lines[1:]]).replace("n_trees = 20", "n_trees = 500")
    (run / "config.toml").write_text(text)
    r = _ok(_report(tmp_path, "--runs", str(run), "--out", "rep", "--format", "json"))
    notes = json.loads(r.out)["tables"][0]["notes"]
    said = [n for n in notes if "config.toml" in n and "0123abcd4567" in n]
    assert said, notes
    assert "data-20260101T000000Z-0123abcd" in said[0]


def test_a_copy_under_a_name_of_ones_own_gets_no_swap_note(rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "my copy")
    r = _ok(_report(tmp_path, "--runs", str(run), "--out", "rep", "--format", "json"))
    notes = json.loads(r.out)["tables"][0]["notes"]
    assert not [n for n in notes if "named like run" in n or "config of run" in n], notes


def test_reproduce_refuses_a_config_copied_from_another_run(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    shutil.copy(rand2 / "config.toml", run / "config.toml")
    _refused(cli(tmp_path, "reproduce", "--run", str(run)), "config.toml", "edited after the run")


# --- the cross-check of a damaged run ---------------------------------------------------------------


def test_crosscheck_without_the_eval_log_says_what_it_did_not_check(
        gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    (run / "evallog.csv").unlink()
    r = _ok(cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc", "--format", "json"))
    doc = json.loads(r.out)
    assert any("evallog.csv" in n and "not checked" in n for n in doc["notes"]), doc["notes"]
    assert {c["source"] for c in doc["checks"]} == {"recomputed"}


def test_crosscheck_of_a_tampered_score_fails_naming_the_query(
        gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    scores = pd.read_parquet(run / "scores.parquet")
    labels = pd.read_parquet(run / "labels.parquet")
    test = labels[labels["split"] == "test"].sort_values("row")
    qid = int(test["qid"].iloc[0])
    rows = test.loc[test["qid"] == qid, "row"]
    pick = (scores["model"] == "lightgbm-lambdarank") & (scores["split"] == "test") & \
        scores["row"].isin(rows)
    # the worst document of the query put first: its NDCG@10 must drop
    worst = test.loc[test["qid"] == qid].sort_values("label")["row"].iloc[0]
    scores.loc[pick & (scores["row"] == worst), "score"] = 1e6
    scores.to_parquet(run / "scores.parquet")
    r = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc")
    assert not r.traceback, r.err
    assert r.status == 1, (r.status, r.err)
    assert f"qid {qid}" in r.out, r.out[-1500:]


def test_crosscheck_of_a_run_folder_of_runs_names_the_missing_file(
        work: Path, gbdt: Path, tmp_path: Path) -> None:
    _refused(cli(tmp_path, "crosscheck", "--run", str(gbdt.parent), "--out", "cc"),
             "labels.parquet")


def test_crosscheck_of_a_cut_eval_log_names_the_line(gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    lines = (run / "evallog.csv").read_text().splitlines()
    (run / "evallog.csv").write_text("\n".join(lines[:3]) + "\n" + lines[3][:6])
    _refused(cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc"), "evallog.csv:4")


def test_crosscheck_never_writes_into_the_run_it_reads(gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    before = snapshot(run)
    _refused(cli(tmp_path, "crosscheck", "--run", str(run), "--out", str(run / "x")), "--out")
    assert untouched(before, run) is None
    assert not (run / "x").exists()


# --- numbers against hand arithmetic -------------------------------------------------------------


def _ndcg10_exp2(labels: np.ndarray, scores: np.ndarray, *, ties: str) -> float:
    """NDCG@10, gain 2^l - 1, discount 1/log2(rank + 1); ``ties="stable"``: equal scores in
    row order (LightGBM's std::stable_sort); ``"average"``: each tied group's documents share
    the mean of the group's discounts within the cutoff (McSherry & Najork, ECIR 2008)."""
    disc = np.zeros(len(labels) + 10)
    disc[:10] = 1.0 / np.log2(np.arange(2, 12))
    order = np.argsort(-scores, kind="stable")
    gain = 2.0 ** labels[order] - 1
    if ties == "stable":
        dcg = float((gain * disc[:len(gain)]).sum())
    else:
        s, dcg, start = scores[order], 0.0, 0
        while start < len(s):
            end = start + 1
            while end < len(s) and s[end] == s[start]:
                end += 1
            dcg += float(gain[start:end].mean() * disc[start:end].sum())
            start = end
    ideal = np.sort(2.0 ** labels - 1)[::-1]
    idcg = float((ideal * disc[:len(ideal)]).sum())
    return dcg / idcg if idcg > 0 else math.nan


def _hand_test_ndcg(run: Path, model: str, *, ties: str = "average") -> float:
    labels = pd.read_parquet(run / "labels.parquet")
    scores = pd.read_parquet(run / "scores.parquet")
    test = labels[labels["split"] == "test"].merge(
        scores[(scores["model"] == model) & (scores["split"] == "test")], on=["split", "row"])
    values = [_ndcg10_exp2(g["label"].to_numpy(), g["score"].to_numpy(), ties=ties)
              for _, g in test.sort_values("row").groupby("qid", sort=False)]
    return float(np.nanmean(values))


@pytest.mark.parametrize("model", ["random", "lightgbm-lambdarank"])
def test_the_leaderboard_number_is_ndcg10_by_hand_from_the_run_s_own_scores(
        gbdt: Path, tmp_path: Path, model: str) -> None:
    r = _ok(_report(tmp_path, "--runs", str(gbdt), "--out", "rep", "--format", "json"))
    rows = json.loads(r.out)["tables"][0]["rows"]
    row = next(x for x in rows if x["model"] == model)
    got = row["metrics"]["ndcg@10"]["mean"] if isinstance(row.get("metrics"), dict) \
        else row["ndcg@10"]
    assert abs(float(got) - _hand_test_ndcg(gbdt, model)) < 1e-12


def test_the_crosscheck_reference_is_lightgbm_s_own_ndcg_by_hand(gbdt: Path, tmp_path: Path) -> None:
    """LightGBM's ndcg@10 (gain 2^l - 1, its default label_gain; equal scores in row order)
    by hand from the test scores equals the cross-check's recomputed built-in value."""
    r = _ok(cli(tmp_path, "crosscheck", "--run", str(gbdt), "--out", "cc", "--format", "json"))
    check = next(c for c in json.loads(r.out)["checks"]
                 if c["split"] == "test" and c["source"] == "recomputed")
    hand = _hand_test_ndcg(gbdt, "lightgbm-lambdarank", ties="stable")
    assert abs(check["builtin"] - hand) < 1e-6


# --- reports over damaged or tampered runs: earlier files kept -------------------------------------


def test_a_failed_report_over_a_tampered_run_leaves_the_earlier_report_as_it_was(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    _ok(_report(tmp_path, "--runs", str(run), "--out", "rep"))
    before = snapshot(tmp_path / "rep")
    frame = pd.read_csv(run / "metrics.csv")
    frame.loc[frame.index[-1], "value"] = 0.999
    frame.to_csv(run / "metrics.csv", index=False)
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "metrics.csv",
             "per_query.parquet")
    assert untouched(before, tmp_path / "rep") is None


def test_a_fault_half_way_through_writing_a_report_keeps_the_earlier_set(
        rand: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from bench.report import leaderboard

    _ok(_report(tmp_path, "--runs", str(rand), "--out", "rep"))
    before = snapshot(tmp_path / "rep")
    real, calls = leaderboard.write_text, []

    def full_on_the_third(path: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(path)
        if len(calls) == 3:  # leaderboard.json: md and csv are written already
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, text, *args, **kwargs)

    monkeypatch.setattr(leaderboard, "write_text", full_on_the_third)
    r = _report(tmp_path, "--runs", str(rand), "--out", "rep", "--seed", "3")
    assert not r.traceback, r.err
    assert r.status == 2, (r.status, r.err)
    assert "No space left on device" in r.err
    assert len(calls) == 3
    assert untouched(before, tmp_path / "rep") is None  # the seed-0 set, whole
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == sorted(before), \
        "a temporary of the cut set was left behind"


def test_report_over_a_run_whose_manifest_run_id_is_not_text_names_the_field(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["run_id"] = 5
    (run / "manifest.json").write_text(json.dumps(manifest))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "manifest.json", "'run_id'",
             "a string")


def test_report_over_a_manifest_whose_config_hash_is_a_number_names_the_field(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["config_hash"] = 12345
    (run / "manifest.json").write_text(json.dumps(manifest))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "'config_hash'", "hex")


def test_report_over_a_per_query_file_cut_in_half_names_the_file(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    data = (run / "per_query.parquet").read_bytes()
    (run / "per_query.parquet").write_bytes(data[:len(data) // 2])
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "per_query.parquet")


def test_report_over_a_manifest_cut_in_half_names_the_file(rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    data = (run / "manifest.json").read_bytes()
    (run / "manifest.json").write_bytes(data[:len(data) // 2])
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "manifest.json")


# --- a run being written, an unfinished run, a consistent forgery ---------------------------------


def test_crosscheck_of_a_run_being_written_is_refused_naming_the_writer(
        gbdt: Path, tmp_path: Path) -> None:
    from bench.runs.lock import writer_lock

    run = _copy(gbdt, tmp_path / "run")
    with writer_lock(run):
        _refused(cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc"),
                 "being written now", f"pid {os.getpid()}")
    assert not (tmp_path / "cc").exists()


def test_crosscheck_of_an_unfinished_run_says_it_did_not_finish(
        gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    _unfinish(run)
    scores = pd.read_parquet(run / "scores.parquet")
    scores[scores["split"] != "test"].to_parquet(run / "scores.parquet")  # killed before test
    r = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc", "--format", "json")
    assert not r.traceback, r.err
    assert r.status == 1, r.err
    doc = json.loads(r.out)
    assert any("did not finish" in n for n in doc["notes"]), doc["notes"]
    assert any("0 scores for 48 labelled rows" in e for e in doc["errors"]), doc["errors"]


def _forge(run: Path, model: str, split: str, metric: str, delta: float) -> None:
    """``metric`` of ``model`` on ``split`` raised by ``delta`` in per_query.parquet and its mean
    in metrics.csv, consistently (what an edit that knows the files would do)."""
    pq = pd.read_parquet(run / "per_query.parquet")
    cell = (pq["model"] == model) & (pq["split"] == split) & (pq["metric"] == metric)
    pq.loc[cell, "value"] = (pq.loc[cell, "value"] + delta).clip(upper=1.0)
    pq.to_parquet(run / "per_query.parquet", index=False)
    metrics = pd.read_csv(run / "metrics.csv")
    row = (metrics["model"] == model) & (metrics["split"] == split) & \
        (metrics["metric"] == metric) & (metrics["profile"] == "ltrbench")
    metrics.loc[row, "value"] = float(pq.loc[cell, "value"].mean())
    metrics.to_csv(run / "metrics.csv", index=False)


def test_a_consistent_forgery_of_a_library_model_is_caught_by_crosscheck(
        gbdt: Path, tmp_path: Path) -> None:
    run = _copy(gbdt, tmp_path / "run")
    _forge(run, "lightgbm-lambdarank", "test", "ndcg@10", 0.05)
    r = cli(tmp_path, "crosscheck", "--run", str(run), "--out", "cc", "--format", "json")
    assert not r.traceback, r.err
    assert r.status == 1, r.err
    errors = json.loads(r.out)["errors"]
    assert any("metrics.csv" in e and "recomputed from scores.parquet" in e for e in errors), errors


def test_a_consistent_forgery_of_a_baseline_is_caught_by_reproduce(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    _forge(run, "random", "test", "ndcg@10", 0.1)
    r = cli(tmp_path, "reproduce", "--run", str(run))
    assert not r.traceback, r.err
    assert r.status == 1, (r.status, r.err[-500:])
    assert "ndcg@10" in r.out
    assert "differ" in r.out, r.out[-800:]


# --- resume: what is compared and what is not -------------------------------------------------


def test_resume_under_a_recorded_package_that_is_not_installed_names_it(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    _unfinish(run, **{"environment.packages.implicit": "0.0.1"})
    _refused(cli(tmp_path, "run", "--resume", str(run), "--no-progress"), "implicit 0.0.1 there")


def test_resume_under_another_version_of_a_package_that_makes_no_number_goes_on(
        rand: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    _unfinish(run, **{"environment.packages.rich": "0.0.1"})  # a terminal library
    _ok(cli(tmp_path, "run", "--resume", str(run), "--no-progress"))


# --- HTML and the earlier report ----------------------------------------------------------------


def test_a_failed_html_report_over_a_damaged_run_keeps_the_earlier_page(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    _ok(_report(tmp_path, "--runs", str(run), "--out", "rep", "--html"))
    before = snapshot(tmp_path / "rep")
    assert "leaderboard.html" in before
    text = (run / "timings.csv").read_text()
    (run / "timings.csv").write_text(text.replace("random,", "lightgbm-lambdarank,", 1))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep", "--html"), "timings.csv")
    assert untouched(before, tmp_path / "rep") is None


# --- config.toml and the manifest disagree ------------------------------------------------------


def test_report_over_a_config_whose_seeds_were_edited_after_the_run_names_the_key(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    text = (run / "config.toml").read_text()
    (run / "config.toml").write_text(text.replace("seeds = [\n    0,\n]", "seeds = [\n    0,\n    1,\n    2,\n]"))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "config.toml", "seeds",
             "[0, 1, 2]", "[0]")


def test_report_over_a_config_with_a_model_added_after_the_run_names_the_key(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    text = (run / "config.toml").read_text()
    (run / "config.toml").write_text(text.replace('    "random",\n', '    "random",\n    "lightgbm-lambdarank",\n', 1))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "config.toml", "models",
             "lightgbm-lambdarank")


# --- two runs' files swapped one by one ---------------------------------------------------------


def test_metrics_csv_swapped_between_two_runs_is_refused_naming_the_seed(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    shutil.copy(rand2 / "metrics.csv", run / "metrics.csv")
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "metrics.csv", "seed 1")


def test_per_query_swapped_between_two_runs_is_refused_naming_the_file(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    shutil.copy(rand2 / "per_query.parquet", run / "per_query.parquet")
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "per_query.parquet")


def test_resume_of_a_run_whose_config_was_copied_from_another_run_is_refused(
        rand: Path, rand2: Path, tmp_path: Path) -> None:
    run = _copy_results(rand, tmp_path)
    shutil.copy(rand2 / "config.toml", run / "config.toml")
    _unfinish(run)
    before = snapshot(run)
    r = cli(tmp_path, "run", "--resume", str(run), "--no-progress")
    assert not r.traceback, r.err
    assert r.status == 2, (r.status, r.err[-400:])
    assert untouched(before, run) is None


def test_report_over_a_manifest_whose_finish_time_is_not_a_time_names_the_field(
        rand: Path, tmp_path: Path) -> None:
    run = _copy(rand, tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["finished"] = "yes"
    (run / "manifest.json").write_text(json.dumps(manifest))
    _refused(_report(tmp_path, "--runs", str(run), "--out", "rep"), "manifest.json",
             "'finished'", "ISO 8601")
