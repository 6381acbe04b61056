"""Hostile messages: an error names the user's file and line (or keys, or row), never an internal
row; a folder that is almost a dataset names the file it lacks; an output folder never lands in
the dataset folder.

1. A qrels judgment that breaks the profile's label rules (above its largest label, a graded
   label where it computes map/p on binary labels) is named by the qrels file and its 1-based
   line (comment and blank lines counted), by the keys of a dict (``qrels['1']['c']``) or by the
   row of a DataFrame, whether the document was retrieved, only enters the ideal DCG, or
   belongs to a qrels query without a run line -- and on the comparison path (``--run A --run
   B``) too.
2. A near-miss dataset folder (two of three split files, a broken link, a folder where a file
   should be, ``rank.train`` without ``rank.test``, a ratings file that is no file) names the
   missing or broken file by its path.
3. ``run --out`` that is, or lies inside, the dataset folder, or whose ``runs/`` holds it, is
   refused before any work; an ``--out`` that merely holds the dataset folder is fine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import pytest

from bench import cli
from bench.data.folders import entry_problem, near_miss, read_folder
from bench.data.outputs import check_output_dir
from bench.datasets.resolve import load_path
from bench.errors import ConfigError, DataError
from bench.metrics import evaluate, evaluate_trec
from bench.runs.layout import RUN_INTO, RUN_SEALED, RUN_WRITES, run_inputs, run_writes

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"


def _evaluate(tmp: Path, qrels: str, *argv: str, run: str = RUN,
              capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    (tmp / "q.txt").write_text(qrels)
    (tmp / "r.txt").write_text(run)
    status = cli.main(["evaluate", "--qrels", str(tmp / "q.txt"), *argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err.strip()


# ------------------------------------------------------------------ 1. qrels labels: file:line
@pytest.mark.parametrize(("qrels", "profile", "metric", "line", "value"), [
    (QRELS.replace("1 0 c 2", "1 0 c 100"), "ltrbench", "ndcg@10", 3, "relevance 100 is above 31"),
    (QRELS.replace("2 0 d 1", "2 0 d 31"), "lightgbm", "ndcg@10", 4, "relevance 31 is above 30"),
    # comment and blank lines count as lines (bench.errors: ``line`` is the file's line)
    ("# judged by hand\n\n" + QRELS.replace("1 0 c 2", "1 0 c 100"), "ltrbench", "ndcg@10", 5,
     "relevance 100"),
    # xgboost computes map only on binary labels: a graded judgment is named by its line
    (QRELS, "xgboost", "map", 3, "relevance 2"),
    # gdeval (largest label 4, IDCG from the qrels): a judged document the run did not retrieve
    (QRELS + "2 0 f 5\n", "gdeval", "ndcg@10", 6, "relevance 5 is above 4"),
    # ranx-burges scores a qrels query without a run line 0: its judgment is used and checked
    (QRELS + "3 0 g 40\n", "ranx-burges", "ndcg@10", 6, "relevance 40 is above 31"),
])
def test_a_qrels_label_the_profile_refuses_names_the_qrels_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, profile: str,
        metric: str, line: int, value: str) -> None:
    status, err = _evaluate(tmp_path, qrels, "--run", str(tmp_path / "r.txt"), "--profile",
                            profile, "--metrics", metric, capsys=capsys)
    assert status == 2
    assert err.startswith(f"error: {tmp_path / 'q.txt'}:{line}: {value}"), err
    assert "rows are numbered" not in err
    assert "row " not in err


def test_a_qrels_label_above_the_limit_is_named_on_the_comparison_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r2.txt").write_text(RUN)
    status, err = _evaluate(tmp_path, QRELS.replace("1 0 c 2", "1 0 c 100"), "--run",
                            f"A={tmp_path / 'r.txt'}", "--run", f"B={tmp_path / 'r2.txt'}",
                            "--profile", "ltrbench", "--metrics", "ndcg@10", capsys=capsys)
    assert status == 2
    assert f"{tmp_path / 'q.txt'}:3: relevance 100 is above 31" in err


def test_a_qrels_label_the_profile_never_uses_is_not_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ltrbench's IDCG comes from the list and it drops qrels queries without a run line: a
    judgment of 100 for an unretrieved document, or for a query the run lacks, enters no number
    (the same number as without it), so it is not an error."""
    (tmp_path / "q0.txt").write_text(QRELS)
    (tmp_path / "q1.txt").write_text(QRELS + "1 0 z 100\n3 0 y 100\n")
    (tmp_path / "r.txt").write_text(RUN)
    want = evaluate_trec(tmp_path / "q0.txt", tmp_path / "r.txt", metrics="ndcg@10",
                         profile="ltrbench").metrics["ndcg@10"]
    got = evaluate_trec(tmp_path / "q1.txt", tmp_path / "r.txt", metrics="ndcg@10",
                        profile="ltrbench").metrics["ndcg@10"]
    assert got == want


def test_a_negative_qrels_judgment_is_unjudged_not_an_error(tmp_path: Path) -> None:
    """trec_eval reads a negative relevance as not relevant; no profile refuses it in qrels."""
    (tmp_path / "q.txt").write_text(QRELS.replace("1 0 a 1", "1 0 a -1"))
    (tmp_path / "z.txt").write_text(QRELS.replace("1 0 a 1", "1 0 a 0"))
    (tmp_path / "r.txt").write_text(RUN)
    for profile in ("ltrbench", "lightgbm", "xgboost", "trec_eval", "gdeval"):
        neg = evaluate_trec(tmp_path / "q.txt", tmp_path / "r.txt", metrics="ndcg@10",
                            profile=profile).metrics["ndcg@10"]
        zero = evaluate_trec(tmp_path / "z.txt", tmp_path / "r.txt", metrics="ndcg@10",
                             profile=profile).metrics["ndcg@10"]
        assert neg == zero, profile


def test_a_qrels_dict_label_above_the_limit_names_its_keys() -> None:
    with pytest.raises(DataError) as err:
        evaluate_trec({"1": {"a": 1, "c": 100}}, {"1": {"a": 0.5, "c": 0.1}},
                      metrics="ndcg@10", profile="ltrbench")
    assert str(err.value).startswith("qrels['1']['c']: relevance 100 is above 31"), err.value


def test_a_qrels_frame_label_above_the_limit_names_its_row() -> None:
    qrels = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "rel": [1, 0, 100]})
    run = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [3., 2., 1.]})
    with pytest.raises(DataError) as err:
        evaluate_trec(qrels, run, metrics="ndcg@10", profile="ltrbench")
    assert str(err.value).startswith("qrels DataFrame, row 3, column 'rel': relevance 100"), \
        err.value


def test_a_qrels_frame_nan_label_names_its_row() -> None:
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1.0, float("nan")]})
    with pytest.raises(DataError) as err:
        evaluate_trec(qrels, {"1": {"a": 1.0, "b": 0.5}}, metrics="ndcg@10")
    assert "qrels DataFrame" in str(err.value)
    assert "row 2" in str(err.value)


def test_array_labels_keep_their_row_numbers() -> None:
    with pytest.raises(DataError) as err:
        evaluate([1, 100], [0.5, 0.1], group=[2], metrics="ndcg@10", profile="ltrbench")
    assert str(err.value) == ("row 2: label 100.0 is above 31, the largest label profile "
                              "'ltrbench' accepts (gain 2^l - 1; rows are numbered from 1)")


# ------------------------------------------------------------ 2. near-miss folders name the file
SPLIT = "1 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:2 1:0.5\n0 qid:2 1:0.1\n1 qid:3 1:0.5\n0 qid:3 1:0.1\n"


def _fold_without_test(ds: Path) -> None:
    (ds / "Fold1").mkdir()
    for s in ("train", "vali"):
        (ds / f"Fold1/{s}.txt").write_text(SPLIT)


def _broken_test_link(ds: Path) -> None:
    (ds / "train.txt").write_text(SPLIT)
    (ds / "test.txt").symlink_to("nosuch.txt")


def _test_is_a_folder(ds: Path) -> None:
    (ds / "train.txt").write_text(SPLIT)
    (ds / "test.txt").mkdir()


def _rank_train_only(ds: Path) -> None:
    (ds / "rank.train").write_text(SPLIT)


def _broken_vali_link(ds: Path) -> None:
    for s in ("train", "test"):
        (ds / f"{s}.txt").write_text(SPLIT)
    (ds / "vali.txt").symlink_to("gone.txt")


def _parquet_train_only(ds: Path) -> None:
    (ds / "train.parquet").write_bytes(b"")


def _ratings_is_a_broken_link(ds: Path) -> None:
    (ds / "ratings.csv").symlink_to("gone.csv")


def _ratings_is_a_folder(ds: Path) -> None:
    (ds / "ratings.csv").mkdir()


def _archive_fold_without_train(ds: Path) -> None:
    (ds / "inner/Fold1").mkdir(parents=True)
    (ds / "inner/Fold1/test.txt").write_text(SPLIT)


@pytest.mark.parametrize(("make", "named", "why"), [
    (_fold_without_test, "Fold1/test.txt", "is missing"),
    (_broken_test_link, "test.txt", "is a broken symbolic link to 'nosuch.txt'"),
    (_test_is_a_folder, "test.txt", "is a directory, not a file"),
    (_rank_train_only, "rank.test", "is missing"),
    (_broken_vali_link, "vali.txt", "is a broken symbolic link"),
    (_parquet_train_only, "test.parquet", "is missing"),
    (_ratings_is_a_broken_link, "ratings.csv", "is a broken symbolic link to 'gone.csv'"),
    (_ratings_is_a_folder, "ratings.csv", "is a directory, not a file"),
    (_archive_fold_without_train, "inner/Fold1/train.txt", "is missing"),
])
def test_a_near_miss_dataset_folder_names_the_missing_or_broken_file(
        tmp_path: Path, make: object, named: str, why: str) -> None:
    ds = tmp_path / "ds"
    ds.mkdir()
    make(ds)  # type: ignore[operator]
    with pytest.raises(DataError) as err:
        load_path(ds)
    assert f"{ds / named} {why}" in str(err.value), err.value
    if "ratings" not in named:  # the LETOR reader alone knows no ratings files
        with pytest.raises(DataError) as err2:
            read_folder(ds)
        assert f"{ds / named} {why}" in str(err2.value), err2.value


def test_run_on_a_fold_folder_without_its_test_file_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = tmp_path / "ds"
    ds.mkdir()
    _fold_without_test(ds)
    status = cli.main(["run", "--dataset", str(ds), "--quick", "--no-cache", "--no-progress",
                       "--models", "random", "--seeds", "0", "--out", str(tmp_path / "res")])
    err = capsys.readouterr().err
    assert status == 2
    assert f"{ds / 'Fold1/test.txt'} is missing" in err, err


def test_a_folder_that_is_no_near_miss_lists_the_layouts(tmp_path: Path) -> None:
    (tmp_path / "readme").write_text("hi")
    assert near_miss(tmp_path) is None
    with pytest.raises(DataError, match=r"expected Fold1/.*it holds readme"):
        load_path(tmp_path)


def test_several_candidate_split_files_are_named_not_hidden(tmp_path: Path) -> None:
    for name in ("a.train.txt", "b.train.txt", "test.txt"):
        (tmp_path / name).write_text(SPLIT)
    with pytest.raises(DataError, match=r"several train files \(a.train.txt, b.train.txt\)"):
        load_path(tmp_path)


def test_lightgbm_folder_without_a_query_file_names_its_path(tmp_path: Path) -> None:
    for name in ("rank.train", "rank.test"):
        (tmp_path / name).write_text("1 1:0.5\n0 1:0.1\n")
    (tmp_path / "rank.test.query").write_text("2\n")
    with pytest.raises(DataError, match=f"{tmp_path / 'rank.train.query'} is missing"):
        load_path(tmp_path)


def test_entry_problem_of_a_readable_file_is_none(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert entry_problem(tmp_path / "f") is None
    assert entry_problem(tmp_path / "g") == "is missing"


# ------------------------------------------------------------ 3. run --out and the dataset folder
def _run_check(out: Path, dataset: Path, *, no_crosscheck: bool = True) -> Path:
    args = argparse.Namespace(config=None, dataset=str(dataset), data_dir=None,
                              no_crosscheck=no_crosscheck)
    return check_output_dir(out, option="--out", inputs=run_inputs(args), writes=run_writes(args),
                            into=RUN_INTO, sealed=RUN_SEALED)


def _dataset(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for s in ("train", "vali", "test"):
        (folder / f"{s}.txt").write_text(SPLIT)
    return folder


@pytest.mark.parametrize(("out", "words"), [
    ("letor", "is the input folder --dataset"),
    ("letor/results", "lies inside the input folder --dataset"),
    ("letor/./", "is the input folder --dataset"),
    ("alias", "is the input folder --dataset"),  # a symlink to the dataset folder
])
def test_run_out_in_the_dataset_folder_is_refused(tmp_path: Path, out: str, words: str) -> None:
    ds = _dataset(tmp_path / "letor")
    (tmp_path / "alias").symlink_to("letor")
    with pytest.raises(ConfigError, match=words):
        _run_check(tmp_path / out, ds)


def test_run_out_whose_runs_folder_holds_the_dataset_is_refused(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "w/runs/letor")
    with pytest.raises(ConfigError, match=r"creates its folders in .*runs"):
        _run_check(tmp_path / "w", ds)


def test_run_out_whose_crosscheck_folder_is_the_dataset_is_refused(tmp_path: Path) -> None:
    """The cross-check files go to ``OUT/<dataset>/``: with the dataset folder ``OUT/letor``
    they would be written into it; without cross-check nothing goes there."""
    ds = _dataset(tmp_path / "w/letor")
    assert "*/crosscheck.md" in RUN_WRITES
    with pytest.raises(ConfigError, match=r"writes crosscheck\.md, crosscheck\.json into .*letor"):
        _run_check(tmp_path / "w", ds, no_crosscheck=False)
    assert _run_check(tmp_path / "w", ds) == tmp_path / "w"


def test_run_out_that_merely_holds_the_dataset_folder_is_fine(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "w/data/letor")
    assert _run_check(tmp_path / "w", ds, no_crosscheck=False) == tmp_path / "w"
    assert _run_check(tmp_path / "elsewhere", ds) == tmp_path / "elsewhere"


def test_run_out_in_the_config_files_folder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg/run.toml").write_text("")
    args = argparse.Namespace(config=str(tmp_path / "cfg/run.toml"), dataset="synthetic",
                              data_dir=None, no_crosscheck=False)
    out = tmp_path / "cfg/results"
    assert check_output_dir(out, option="--out", inputs=run_inputs(args),
                            writes=run_writes(args), into=RUN_INTO, sealed=RUN_SEALED) == out


def test_run_cli_out_is_the_dataset_folder_is_refused_and_the_folder_untouched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = _dataset(tmp_path / "letor")
    before = sorted(p.name for p in ds.iterdir())
    status = cli.main(["run", "--dataset", str(ds), "--quick", "--no-cache", "--no-progress",
                       "--no-crosscheck", "--models", "random", "--seeds", "0", "--out", str(ds)])
    err = capsys.readouterr().err
    assert status == 2
    assert "is the input folder --dataset" in err, err
    assert sorted(p.name for p in ds.iterdir()) == before


def test_run_out_in_the_dataset_folder_named_by_the_config_is_refused(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "letor")
    (tmp_path / "run.toml").write_text(f'dataset = "{ds}"\n')
    args = argparse.Namespace(config=str(tmp_path / "run.toml"), dataset=None, data_dir=None,
                              no_crosscheck=True)
    with pytest.raises(ConfigError, match="is the input folder the dataset of --config"):
        check_output_dir(ds, option="--out", inputs=run_inputs(args), writes=run_writes(args),
                         into=RUN_INTO, sealed=RUN_SEALED)
    args.dataset = "synthetic"  # --dataset overrides the config's
    assert check_output_dir(ds, option="--out", inputs=run_inputs(args), into=RUN_INTO,
                            sealed=RUN_SEALED) == ds
