"""Round 23, persona D: the careless operator with a messy home directory.

Every command that writes is pointed at, over or into folders that already hold data: a LETOR
folder, a conversion, a Parquet split set of the user's own that is *not* an input of the
command (the gap the earlier catalogues left: only the command's own inputs and the catalogue
datasets of the data directory were sealed), spelled through a second symbolic link, ``..``,
doubled slashes; outputs whose names are taken by a folder where a file goes and the other way
round; Optuna storage paths with a line end, a trailing slash, a read-only folder; and faults
(a full disk, Ctrl-C) between the two files of a pair that must agree.

Each test names its class of issue 19 (input destroyed, silent accept, unclear error,
traceback). The commands run in-process (:func:`hostile_kit.cli`); the work behind every check
is replaced by a sentinel (:func:`_no_work`), so a refusal is proven to come before any work
and an accepted output never trains, reads ratings or measures anything.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import (
    QRELS,
    RATINGS,
    RUN,
    Res,
    chdir,
    cli,
    letor_folder,
    ok,
    refused,
    snapshot,
    untouched,
    write_one_seed_run,
)


class _Work(Exception):
    """Raised where the command would start its work: the output checks were passed."""


def _boom(*_a: Any, **_k: Any) -> Any:
    raise _Work("the command went on to its work")


@pytest.fixture(autouse=True)
def _no_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The work of every writer replaced by :class:`_Work`, and an empty data directory."""
    import bench.benchmark.pipeline as pipeline
    import bench.benchmark.reproduce as reproduce
    import bench.benchmark.tune_run as tune_run
    import bench.crosscheck.evaluators as evaluators
    import bench.datasets.ratings_source as ratings_source
    import bench.perf.loader as loader
    import bench.perf.startup as startup

    for module, name in ((pipeline, "run_benchmark"), (tune_run, "run_tune"),
                         (ratings_source, "read_ratings"), (reproduce, "reproduce_run"),
                         (evaluators, "crosscheck_evaluators"), (startup, "run"),
                         (loader, "benchmark")):
        monkeypatch.setattr(module, name, _boom)
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(tmp_path / "data"))


def _worked(res: Res) -> bool:
    return "_Work" in res.err


def _no_work_done(res: Res, *words: str) -> str | None:
    """``refused`` that says plainly when the command went on to its work."""
    if _worked(res):
        return "accepted: the command went on to its work (no refusal)"
    return refused(res, *words)


def _says(msg: str | None, *words: str) -> str | None:
    """None when ``msg`` (a refusal) holds every word."""
    if msg is None:
        return "accepted, expected a refusal"
    missing = [w for w in words if w not in msg]
    return f"message {msg!r} lacks {missing}" if missing else None


def _converted(folder: Path) -> Path:
    """A folder as ``ltrbench convert`` leaves it: the split files and their record."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [f"{s}{e}" for s in ("train", "vali", "test") for e in (".txt", ".txt.query",
                                                                    ".parquet")]
    for n in names:
        (folder / n).write_bytes(b"PAR1" if n.endswith(".parquet") else b"1 qid:1 1:0\n")
    (folder / "summary.json").write_text(json.dumps({"files": [*names, "summary.json"]}))
    return folder


def _parquet_set(folder: Path) -> Path:
    """A user's own Parquet split set (no conversion record)."""
    folder.mkdir(parents=True, exist_ok=True)
    for s in ("train", "vali", "test"):
        (folder / f"{s}.parquet").write_bytes(b"PAR1 user data PAR1")
    return folder


def _trec(tmp: Path) -> None:
    (tmp / "q.txt").write_bytes(QRELS)
    (tmp / "r.txt").write_bytes(RUN)


CONVERT = ("--layout", "csv", "--user", "user", "--item", "item", "--rating", "rating",
           "--timestamp", "timestamp", "--no-progress")


# ------------------------------------------------------- convert over a dataset of the user's own
def test_input_destroyed_convert_out_into_a_letor_folder_of_yours_keeps_its_splits(
        tmp_path: Path) -> None:
    """``convert --out ~/letor`` (an MQ2007 copy given by path, no input of convert) replaced
    the user's train/vali/test.txt with the conversion, exit 0."""
    letor = letor_folder(tmp_path / "letor")
    (tmp_path / "r.csv").write_bytes(RATINGS)
    before = snapshot(letor)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "letor", *CONVERT)
    ok(_no_work_done(res, "--out", "train.txt"))
    ok(untouched(before, letor))


def test_input_destroyed_convert_out_into_a_parquet_set_of_yours_through_a_second_link(
        tmp_path: Path) -> None:
    """The same folder reached through a second symbolic link (``ds2 -> pq``), with ``./``
    and a trailing slash: the user's train.parquet would be replaced."""
    pq = _parquet_set(tmp_path / "pq")
    (tmp_path / "ds2").symlink_to(pq)
    (tmp_path / "r.csv").write_bytes(RATINGS)
    before = snapshot(pq)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "./ds2/", *CONVERT)
    ok(_no_work_done(res, "--out", "train.parquet"))
    ok(untouched(before, pq))


def test_input_destroyed_convert_out_over_a_summary_json_that_no_conversion_wrote(
        tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "summary.json").write_text('{"my": "notes"}')
    (tmp_path / "r.csv").write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "out", *CONVERT)
    ok(_no_work_done(res, "--out", "summary.json"))
    assert (tmp_path / "out" / "summary.json").read_text() == '{"my": "notes"}'


def test_input_destroyed_convert_out_over_a_shard_folder_of_yours(tmp_path: Path) -> None:
    """A Dask conversion replaces ``train/``, ``vali/``, ``test/``: here the user's shards."""
    shards = tmp_path / "out" / "train"
    shards.mkdir(parents=True)
    (shards / "part-0.parquet").write_bytes(b"PAR1 mine PAR1")
    (tmp_path / "r.csv").write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "out", *CONVERT)
    ok(_no_work_done(res, "--out", "train"))
    assert (shards / "part-0.parquet").read_bytes() == b"PAR1 mine PAR1"


def test_silent_accept_guard_convert_out_into_its_own_earlier_conversion_goes_on(
        tmp_path: Path) -> None:
    """The other side of the rule: converting again into a conversion's folder (its record
    lists every file) is the documented way to refresh it, and goes on to the work."""
    _converted(tmp_path / "out")
    (tmp_path / "r.csv").write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "out", *CONVERT)
    assert _worked(res), res.err[-800:]


def test_silent_accept_guard_convert_after_a_killed_switch_goes_on(tmp_path: Path) -> None:
    """A first conversion killed among its renames left ``train.txt`` and its switch note
    (no record yet): running convert again is what the readers' error says to do."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.txt").write_bytes(b"1 qid:1 1:0\n")
    note = out / ".set-999999999-abc.tmp"
    note.mkdir()
    (note / ".switching").write_text("test.txt\ntrain.txt\nvali.txt\n")
    (tmp_path / "r.csv").write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "out", *CONVERT)
    assert _worked(res), res.err[-800:]


def test_unclear_error_convert_out_where_a_split_file_is_a_folder_is_refused_before_work(
        tmp_path: Path) -> None:
    """``out/train.txt/`` a folder: the conversion ran to its end and failed at the rename."""
    (tmp_path / "out" / "train.txt").mkdir(parents=True)
    (tmp_path / "r.csv").write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "r.csv", "--out", "out", *CONVERT)
    ok(_no_work_done(res, "--out", "train.txt", "folder"))


# ------------------------------------------------------------- run / tune / report into datasets
def test_silent_accept_run_out_into_a_letor_folder_given_by_path(tmp_path: Path) -> None:
    """The last session's known gap: ``run --dataset synthetic --out ~/letor`` filled a dataset
    folder (not this run's input) with runs and cross-check files."""
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--out", "letor", "--quick")
    ok(_no_work_done(res, "--out", "letor", "dataset"))
    assert sorted(os.listdir(tmp_path / "letor")) == ["test.txt", "train.txt", "vali.txt"]


def test_silent_accept_run_out_inside_a_converted_folder_spelled_with_dotdot(
        tmp_path: Path) -> None:
    _converted(tmp_path / "conv")
    (tmp_path / "other").mkdir()
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--quick",
              "--out", "other/../conv//results")
    ok(_no_work_done(res, "--out", "conv", "dataset"))
    assert not (tmp_path / "conv" / "results").exists()


def test_silent_accept_run_out_through_a_second_symlink_to_a_parquet_set(tmp_path: Path) -> None:
    pq = _parquet_set(tmp_path / "pq")
    (tmp_path / "alias").symlink_to(pq)
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--quick", "--out", str(tmp_path / "alias"))
    ok(_no_work_done(res, "--out", "dataset"))


def test_silent_accept_run_out_whose_runs_folder_is_a_letor_folder(tmp_path: Path) -> None:
    """``results/runs`` is where the user unpacked a LETOR fold: a run folder would be made
    among its splits."""
    letor_folder(tmp_path / "results" / "runs")
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--quick", "--out", "results")
    ok(_no_work_done(res, "--out", "runs"))


def test_unclear_error_run_out_whose_runs_is_a_file_is_refused_before_work(
        tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "runs").write_text("my notes on runs\n")
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--quick", "--out", "results")
    ok(_no_work_done(res, "--out", "runs"))
    assert (tmp_path / "results" / "runs").read_text() == "my notes on runs\n"


def test_silent_accept_python_run_out_dir_into_a_letor_folder(tmp_path: Path) -> None:
    from bench.benchmark.api import run
    from bench.errors import ConfigError

    letor_folder(tmp_path / "letor")
    with pytest.raises(ConfigError, match="dataset"):
        run("synthetic", models=["random"], seeds=[0], quick=True, out_dir=tmp_path / "letor")


def test_silent_accept_run_result_save_into_a_converted_folder(tmp_path: Path) -> None:
    from bench.benchmark.api import RunResult
    from bench.errors import ConfigError

    r = write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2]})
    conv = _converted(tmp_path / "conv")
    before = sorted(os.listdir(conv))
    with pytest.raises(ConfigError, match="dataset"):
        RunResult(r).save(conv)
    assert sorted(os.listdir(conv)) == before


def test_silent_accept_tune_out_into_a_parquet_set_given_by_path(tmp_path: Path) -> None:
    _parquet_set(tmp_path / "pq")
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "tune", "--dataset", "letor", "--models", "lightgbm", "--quick",
              "--budget-trials", "1", "--out", "pq")
    ok(_no_work_done(res, "--out", "pq", "dataset"))
    assert sorted(os.listdir(tmp_path / "pq")) == ["test.parquet", "train.parquet",
                                                   "vali.parquet"]


def test_silent_accept_report_out_into_a_letor_folder_given_by_path(tmp_path: Path) -> None:
    """``report --out ~/letor`` wrote leaderboard.md/.csv/.json/.tex among the splits."""
    letor = letor_folder(tmp_path / "letor")
    write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2, 0.3]})
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "letor", "--no-plots")
    ok(_no_work_done(res, "--out", "letor", "dataset"))
    assert sorted(os.listdir(letor)) == ["test.txt", "train.txt", "vali.txt"]


def test_input_destroyed_report_plot_folder_that_is_a_letor_folder_of_yours(
        tmp_path: Path) -> None:
    """``report --out work`` where ``work/toy`` (the plot folder of dataset ``toy``) is the
    user's own LETOR copy: the PNGs were drawn among its splits."""
    toy = letor_folder(tmp_path / "work" / "toy")
    write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2, 0.3]})
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "work")
    ok(refused(res, "--out", "toy", "dataset"))
    assert sorted(os.listdir(toy)) == ["test.txt", "train.txt", "vali.txt"]


def test_unclear_error_report_out_where_leaderboard_md_is_a_folder(tmp_path: Path) -> None:
    """It said ``error: o/leaderboard.md: Is a directory``: no option, nothing to do."""
    (tmp_path / "o" / "leaderboard.md").mkdir(parents=True)
    write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2, 0.3]})
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "o", "--no-plots")
    ok(refused(res, "--out", "leaderboard.md", "folder"))
    assert sorted(os.listdir(tmp_path / "o")) == ["leaderboard.md"]


def test_silent_accept_reproduce_out_into_a_converted_folder(tmp_path: Path) -> None:
    r = write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2]})
    _converted(tmp_path / "conv")
    res = cli(tmp_path, "reproduce", "--run", str(r), "--out", "conv")
    ok(_no_work_done(res, "--out", "conv", "dataset"))


def test_silent_accept_crosscheck_evaluators_out_into_a_letor_folder(tmp_path: Path) -> None:
    _trec(tmp_path)
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q.txt", "--trec-run", "r.txt",
              "--out", "letor")
    ok(_no_work_done(res, "--out", "letor", "dataset"))
    assert not (tmp_path / "letor" / "definitions").exists()


def test_silent_accept_per_query_into_a_converted_folder_of_another_dataset(
        tmp_path: Path) -> None:
    """A new file among a conversion's files: the folder's record no longer says what it holds."""
    _trec(tmp_path)
    _converted(tmp_path / "conv")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
              "--per-query", "conv/pq.csv")
    ok(refused(res, "--per-query", "conv", "dataset"))
    assert not (tmp_path / "conv" / "pq.csv").exists()


def test_silent_accept_perf_out_into_a_parquet_set(tmp_path: Path) -> None:
    _parquet_set(tmp_path / "pq")
    res = cli(tmp_path, "perf", "startup", "--out", "pq/startup.md")
    ok(_no_work_done(res, "--out", "pq", "dataset"))


def test_silent_accept_run_out_into_a_movielens_copy_given_by_path(tmp_path: Path) -> None:
    ml = tmp_path / "ml-latest-small"
    ml.mkdir()
    (ml / "ratings.csv").write_bytes(RATINGS)
    (ml / "movies.csv").write_text("movieId,title,genres\n1,A,Drama\n")
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--quick", "--out", "ml-latest-small")
    ok(_no_work_done(res, "--out", "ml-latest-small", "dataset"))


def test_silent_accept_report_out_into_a_letor_root_of_folds(tmp_path: Path) -> None:
    """``MQ2007/`` holding ``Fold1/``: the leaderboard files went beside the folds."""
    letor_folder(tmp_path / "MQ2007" / "Fold1")
    write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2, 0.3]})
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "MQ2007", "--no-plots")
    ok(_no_work_done(res, "--out", "MQ2007", "dataset"))
    assert sorted(os.listdir(tmp_path / "MQ2007")) == ["Fold1"]


def test_silent_accept_per_query_into_a_letor_root_of_five_parts(tmp_path: Path) -> None:
    """OHSUMED's shape: ``S1.txt`` .. ``S5.txt`` (folds are built from them)."""
    _trec(tmp_path)
    (tmp_path / "ohsumed").mkdir()
    for k in range(1, 6):
        (tmp_path / "ohsumed" / f"S{k}.txt").write_text(f"1 qid:{k} 1:0.5\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
              "--per-query", "ohsumed/per_query.csv")
    ok(refused(res, "--per-query", "ohsumed", "dataset"))


def test_silent_accept_guard_reproduce_out_holding_a_dataset_folder_beside_it_goes_on(
        tmp_path: Path) -> None:
    """Not over-refused: ``--out work`` where ``work/letor`` is a dataset writes beside it
    (README: an output folder that merely holds the input folder)."""
    letor_folder(tmp_path / "work" / "letor")
    r = write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2]})
    res = cli(tmp_path, "reproduce", "--run", str(r), "--out", "work")
    assert _worked(res), res.err[-800:]


def test_silent_accept_guard_a_results_folder_beside_a_dataset_is_no_dataset(
        tmp_path: Path) -> None:
    """The rule's edge, at its owner: a folder holding a dataset folder (and one holding a
    single sub-folder, which a LETOR reader would enter) is no dataset itself; a conversion's
    record, a ``Fold1/`` and the split pair are."""
    from bench.datasets.sealed import datasets_around

    letor_folder(tmp_path / "work" / "letor")
    assert datasets_around(tmp_path / "work" / "results") == []
    assert datasets_around(tmp_path / "work") == []
    letor_folder(tmp_path / "root" / "Fold1")
    _converted(tmp_path / "conv")
    found = {p.name for _, p in [*datasets_around(tmp_path / "root" / "new"),
                                 *datasets_around(tmp_path / "conv"),
                                 *datasets_around(tmp_path / "work", into=("letor",))]}
    assert found == {"root", "conv", "letor"}
    deep = letor_folder(tmp_path / "stray") / "a" / "b" / "c"  # a stray pair in /tmp or ~:
    assert datasets_around(deep) == []  # no folder more than two levels up seals everything


def test_silent_accept_crosscheck_versions_out_into_a_letor_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``crosscheck --versions --out ~/letor`` wrote ``definitions/`` among the splits."""
    monkeypatch.setattr("bench.crosscheck.versions.run_versions", _boom)
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "crosscheck", "--versions", "lightgbm==installed", "--out", "letor")
    ok(_no_work_done(res, "--out", "letor", "dataset"))


def test_silent_accept_crosscheck_versions_cache_dir_inside_a_letor_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its virtual environments (hundreds of MB) were made inside the dataset's folder."""
    monkeypatch.setattr("bench.crosscheck.versions.run_versions", _boom)
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "crosscheck", "--versions", "lightgbm==installed",
              "--cache-dir", "letor/envs", "--out", "o")
    ok(_no_work_done(res, "--cache-dir", "letor", "dataset"))
    assert not (tmp_path / "letor" / "envs").exists()


def test_silent_accept_crosscheck_versions_cache_dir_its_owner_made_read_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``chmod a-w cache``: as root the environments were made there all the same (every
    other output folder refuses a folder its owner protected)."""
    monkeypatch.setattr("bench.crosscheck.versions.run_versions", _boom)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache").chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        res = cli(tmp_path, "crosscheck", "--versions", "lightgbm==installed",
                  "--cache-dir", "cache", "--out", "o")
    finally:
        (tmp_path / "cache").chmod(0o755)
    ok(_no_work_done(res, "--cache-dir", "read-only"))


def test_input_destroyed_datasets_fetch_into_a_data_dir_inside_a_dataset_folder(
        tmp_path: Path) -> None:
    """``--data-dir ~/MQ2007/Fold1/datasets``: the download, its staging folder and the
    parse cache were made among another dataset's files (refused before any download)."""
    fold = letor_folder(tmp_path / "MQ2007" / "Fold1")
    res = cli(tmp_path, "datasets", "fetch", "ml-100k", "--data-dir", str(fold / "datasets"),
              "--url", f"file://{tmp_path}/ml-100k.zip", "--no-progress")
    ok(refused(res, "data directory", "Fold1", "dataset"))
    assert sorted(os.listdir(fold)) == ["test.txt", "train.txt", "vali.txt"]


# ------------------------------------------------------------------------- perf loader --dir
def _loader_dir(tmp: Path, folder: str, data: str | None = None) -> str | None:
    """``perf loader``'s own check of ``--dir`` (what the command runs first), in ``tmp``:
    the refusal, or None when accepted."""
    import argparse

    from bench.errors import ConfigError
    from bench.perf.loader import check_inputs

    with chdir(tmp):
        try:
            check_inputs(argparse.Namespace(dir=folder, data=data))
        except ConfigError as exc:
            return str(exc)
    return None


def test_input_destroyed_perf_loader_dir_over_a_fold_of_yours(tmp_path: Path) -> None:
    """``perf loader --dir ~/work`` generates ``~/work/fold/{train,vali,test}.txt`` over
    whatever is there (the user's own fold) and removes ``cache-0`` ... after each turn."""
    fold = letor_folder(tmp_path / "work" / "fold")
    before = snapshot(fold)
    res = cli(tmp_path, "perf", "loader", "--dir", "work", "--rows", "100", "--repeat", "1")
    ok(_no_work_done(res, "--dir", "fold"))
    ok(untouched(before, fold))


def test_unclear_error_perf_loader_dir_that_is_a_device_names_the_option(tmp_path: Path) -> None:
    """It said ``error: /dev/null: File exists``."""
    ok(_says(_loader_dir(tmp_path, "/dev/null"), "--dir", "/dev/null"))


def test_unclear_error_perf_loader_dir_that_is_a_file_names_the_option(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    ok(_says(_loader_dir(tmp_path, "notes.txt"), "--dir", "notes.txt"))
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_input_destroyed_perf_loader_dir_that_is_its_data_folder(tmp_path: Path) -> None:
    """``--data letor --dir letor``: its cache folders made and removed among the splits."""
    letor = letor_folder(tmp_path / "letor")
    ok(_says(_loader_dir(tmp_path, "letor", data="letor"), "--dir", "letor"))
    assert sorted(os.listdir(letor)) == ["test.txt", "train.txt", "vali.txt"]


def _scale_check(tmp: Path, **kw: Any) -> str | None:
    """``perf scale``'s own checks (what the command runs before minutes of generation)."""
    import argparse

    from bench.errors import ConfigError
    from bench.perf.scale import DEFAULT_CONFIG, DEFAULT_DATASET, check_inputs

    args = argparse.Namespace(**{"dataset": DEFAULT_DATASET, "config": DEFAULT_CONFIG,
                                 "data_dir": None, "results": None, **kw})
    with chdir(tmp):
        try:
            check_inputs(args)
        except ConfigError as exc:
            return str(exc)
    return None


def test_silent_accept_perf_scale_results_into_a_letor_folder(tmp_path: Path) -> None:
    """``perf scale --results ~/letor``: refused by the child ``run`` only after the stand-in
    was generated and loaded twice (minutes), in words about ``--out``, not ``--results``."""
    letor_folder(tmp_path / "letor")
    ok(_says(_scale_check(tmp_path, results="letor"), "--results", "letor", "dataset"))


def test_input_destroyed_perf_scale_data_dir_inside_a_dataset_folder(tmp_path: Path) -> None:
    """The generated MSLR-shaped folder and the parse cache went among another dataset's
    files."""
    letor_folder(tmp_path / "letor")
    ok(_says(_scale_check(tmp_path, data_dir=str(tmp_path / "letor" / "gen")),
             "data directory", "letor", "dataset"))


# ------------------------------------------------------------------------- tune --storage
def _storage(tmp: Path, url: str, dataset: str = "letor") -> str | None:
    """``check_tune_storage`` with the inputs ``tune`` gives it; None when accepted."""
    from bench.benchmark.tune import check_tune_storage
    from bench.errors import ConfigError

    try:
        check_tune_storage(url, [("--config", None), ("--dataset", str(tmp / dataset)),
                                 ("--data-dir", None), ("--space", None)])
    except ConfigError as exc:
        return str(exc)
    return None


def test_silent_accept_tune_storage_inside_a_catalogue_dataset_of_the_data_dir(
        tmp_path: Path) -> None:
    """The last session's known gap: ``--storage sqlite:///DATA/MQ2007/study.db`` put the
    study among a catalogue dataset's files (tune's own dataset another one)."""
    letor_folder(tmp_path / "letor")
    letor_folder(tmp_path / "data" / "MQ2007" / "Fold1")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}/data/MQ2007/Fold1/study.db")
    ok(_says(msg, "MQ2007", "--storage"))
    assert not (tmp_path / "data" / "MQ2007" / "Fold1" / "study.db").exists()


def test_silent_accept_tune_storage_inside_a_converted_folder_not_tuned(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    _converted(tmp_path / "conv")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}/conv/study.db")
    ok(_says(msg, "conv", "dataset"))


def test_silent_accept_tune_storage_through_a_second_link_into_the_dataset(
        tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "alias").symlink_to(tmp_path / "letor")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}//alias/./study.db")
    ok(_says(msg, "--storage"))


def test_silent_accept_tune_storage_in_a_folder_its_owner_made_read_only(tmp_path: Path) -> None:
    """``chmod a-w``: as root ``os.access`` says writable and the study was created there."""
    letor_folder(tmp_path / "letor")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        msg = _storage(tmp_path, f"sqlite:///{ro}/study.db")
    finally:
        ro.chmod(0o755)
    ok(_says(msg, "read-only"))


def test_silent_accept_tune_storage_name_with_a_line_end(tmp_path: Path) -> None:
    """A pasted ``s\\n.db``: a file of that name was made, exit 0."""
    letor_folder(tmp_path / "letor")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}/s\n.db")
    ok(_says(msg, "control character"))


def test_silent_accept_tune_storage_ending_in_a_slash(tmp_path: Path) -> None:
    """``sqlite:///new.db/`` names a folder; SQLite made the file ``new.db``."""
    letor_folder(tmp_path / "letor")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}/new.db/")
    ok(_says(msg, "separator"))


def test_unclear_error_tune_storage_name_too_long_names_the_option(tmp_path: Path) -> None:
    """It said ``/tmp/.../sss...s.db: File name too long``: no option."""
    letor_folder(tmp_path / "letor")
    msg = _storage(tmp_path, f"sqlite:///{tmp_path}/{'s' * 300}.db")
    ok(_says(msg, "--storage", "255"))


def test_input_destroyed_guard_tune_storage_over_the_space_file_by_a_second_link(
        tmp_path: Path) -> None:
    """(Kept: a second symlink of an input is the input; refused before SQLite touches it.)"""
    from bench.benchmark.tune import check_tune_storage
    from bench.errors import ConfigError

    letor_folder(tmp_path / "letor")
    (tmp_path / "sp").mkdir()
    (tmp_path / "sp" / "space.toml").write_text("[lightgbm]\n")
    (tmp_path / "sp2").symlink_to(tmp_path / "sp")
    with pytest.raises(ConfigError, match="--storage"):
        check_tune_storage(f"sqlite:///{tmp_path}/sp2/space.toml",
                           [("--dataset", str(tmp_path / "letor")),
                            ("--space", str(tmp_path / "sp" / "space.toml"))])
    assert (tmp_path / "sp" / "space.toml").read_text() == "[lightgbm]\n"


# ---------------------------------------------------------------- faults between paired files
@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()], ids=["ENOSPC", "ctrl-c"])
def test_input_destroyed_fold_table_pair_fault_at_the_json_keeps_one_pair(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: BaseException) -> None:
    """``folds/<name>-folds12345.md`` and ``.json`` were two writes: a fault at the JSON left
    the new fold table's Markdown beside the earlier one's JSON (reproduce reads the JSON)."""
    from bench.benchmark import folds

    monkeypatch.setattr(folds, "render_fold_document", lambda doc: f"# {doc['dataset']}\n")
    folder = tmp_path / "folds"
    folds.write_fold_tables(folder, "x-folds12345", {"dataset": "first"})
    before = snapshot(folder)
    real = Path.write_text

    def failing(self: Path, text: str, *a: Any, **kw: Any) -> int:
        if self.name.endswith(".json"):
            raise fault
        return real(self, text, *a, **kw)

    monkeypatch.setattr(Path, "write_text", failing)
    with pytest.raises(type(fault)):
        folds.write_fold_tables(folder, "x-folds12345", {"dataset": "second"})
    monkeypatch.undo()
    ok(untouched(before, folder))
    assert sorted(os.listdir(folder)) == ["x-folds12345.json", "x-folds12345.md"]


def test_input_destroyed_fold_table_pair_is_replaced_whole_beside_other_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark import folds

    monkeypatch.setattr(folds, "render_fold_document", lambda doc: f"# {doc['dataset']}\n")
    folder = tmp_path / "folds"
    folder.mkdir()
    (folder / "other-folds12.md").write_text("another table\n")
    folds.write_fold_tables(folder, "x-folds12345", {"dataset": "first"})
    md, js = folds.write_fold_tables(folder, "x-folds12345", {"dataset": "second"})
    assert md.read_text() == "# second\n"
    assert json.loads(js.read_text())["dataset"] == "second"
    assert sorted(os.listdir(folder)) == ["other-folds12.md", "x-folds12345.json",
                                          "x-folds12345.md"]


def test_input_destroyed_two_writers_of_one_fold_table_leave_one_whole_pair(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two ``run --folds`` of one name into one ``--out`` finishing together: the first's
    Markdown beside the second's JSON (each file atomic, the pair not)."""
    import threading
    import time

    from bench.benchmark import folds

    def slow(doc: dict[str, Any]) -> str:
        if doc["dataset"] == "first":
            time.sleep(0.15)  # the first writer's JSON comes after the second's whole pair
        return f"# {doc['dataset']}\n"

    monkeypatch.setattr(folds, "render_fold_document", slow)
    folder = tmp_path / "folds"
    first = threading.Thread(target=folds.write_fold_tables,
                             args=(folder, "x-folds12345", {"dataset": "first"}))
    first.start()
    time.sleep(0.05)
    folds.write_fold_tables(folder, "x-folds12345", {"dataset": "second"})
    first.join()
    md = (folder / "x-folds12345.md").read_text()
    js = json.loads((folder / "x-folds12345.json").read_text())
    assert md == f"# {js['dataset']}\n", (md, js)


def test_silent_accept_per_query_beside_the_data_file_in_its_dataset_folder(
        tmp_path: Path) -> None:
    """``--data letor/test.txt --per-query letor/pq.csv``: a file added to the dataset's own
    folder (the input is a file there, the folder another command's input)."""
    letor = letor_folder(tmp_path / "letor")
    (tmp_path / "s.txt").write_text("".join(f"{i % 7}\n" for i in range(48)))
    res = cli(tmp_path, "evaluate", "--data", "letor/test.txt", "--scores", "s.txt",
              "--per-query", "letor/pq.csv")
    ok(refused(res, "--per-query", "letor", "dataset"))
    assert sorted(os.listdir(letor)) == ["test.txt", "train.txt", "vali.txt"]


@pytest.mark.parametrize("fault", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()], ids=["ENOSPC", "ctrl-c"])
def test_input_destroyed_tune_trials_pair_fault_at_the_parquet_keeps_them_agreeing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: BaseException) -> None:
    """``trials.csv`` and ``trials.parquet`` were two writes: a full disk at the Parquet left
    a CSV of three trials beside a Parquet file of two."""
    import pandas as pd

    from bench.benchmark import tune_out
    from bench.runs.tune_layout import TRIAL_COLUMNS

    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame([{"model": "m", "library": "lightgbm", "trial": t,
                              "state": "COMPLETE", "value": 0.5, "metric": "ndcg@10",
                              "profile": "ltrbench", "cpu_s": 1.0, "wall_s": 1.0,
                              "cum_cpu_s": 1.0 + t, "best_so_far": 0.5, "best_iteration": 3,
                              "params": "{}"} for t in range(n)], columns=list(TRIAL_COLUMNS))

    tune_out.write_trials(tmp_path, [frame(2)])
    before = snapshot(tmp_path)
    real_text = Path.write_bytes  # the atomic writer's and a file set's writes alike

    def failing_path(self: Path, data: Any) -> int:
        if self.name.endswith(".parquet"):
            raise fault
        return real_text(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing_path)
    with pytest.raises(type(fault)):
        tune_out.write_trials(tmp_path, [frame(3)])
    monkeypatch.undo()
    ok(untouched(before, tmp_path))
    assert len(pd.read_csv(tmp_path / "trials.csv")) == len(
        pd.read_parquet(tmp_path / "trials.parquet")) == 2


def test_unclear_error_a_report_stopped_by_eio_among_its_renames_says_the_set_is_mixed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """EIO at the third rename of a report's set: it said only ``o/leaderboard.csv:
    Input/output error``, while the folder kept part of the new set beside the earlier one."""
    write_one_seed_run(tmp_path / "runs", "r1", "toy", {"random": [0.1, 0.2, 0.3]})
    write_one_seed_run(tmp_path / "runs", "r2", "toy", {"random": [0.9, 0.8, 0.3]})
    first = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "o", "--no-plots")
    assert first.status == 0, first.err[-1500:]
    real, calls = os.replace, []
    out = str(tmp_path / "o")

    def failing(src: Any, dst: Any, *a: Any, **kw: Any) -> None:
        dest = os.path.abspath(dst)
        if dest.startswith(out) and ".set-" not in dest:
            calls.append(dest)
            if len(calls) == 3:
                raise OSError(errno.EIO, "Input/output error")
        real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", failing)
    res = cli(tmp_path, "report", "--runs", "runs/r2", "--out", "o", "--no-plots")
    monkeypatch.undo()
    ok(refused(res, "Input/output error", "earlier", "again"))


def test_silent_accept_a_leaderboard_left_half_switched_is_refused_by_its_reader(
        tmp_path: Path) -> None:
    """``reproduce o/leaderboard.json`` read the earlier JSON beside the new Markdown of a
    report killed among its renames (the switch note was there)."""
    from bench.errors import DataError
    from bench.report.document import read_document

    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "leaderboard.json").write_text('{"schema": 1, "tables": []}')
    note = tmp_path / "o" / ".set-999999999-abc.tmp"
    note.mkdir()
    (note / ".switching").write_text("leaderboard.json\nleaderboard.md\n")
    with pytest.raises(DataError, match="report"):
        read_document(tmp_path / "o" / "leaderboard.json")


def test_input_destroyed_guard_tune_results_cut_at_the_summary_are_not_complete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk at ``summary.json``: the folder must not say ``complete``."""
    from bench.benchmark import tune_out
    from bench.runs.tune_layout import COMPLETE

    real = tune_out.write_text

    def failing(path: Any, text: str) -> Any:
        if str(path).endswith("summary.json"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, text)

    monkeypatch.setattr(tune_out, "write_text", failing)
    (tmp_path / "best").mkdir()
    with pytest.raises(OSError, match="No space left"):
        tune_out.write_results(tmp_path, {"models": {}}, {"m": "x = 1\n"}, "x = 1\n")
    assert not (tmp_path / COMPLETE).exists()
