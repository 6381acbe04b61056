"""Round 9: LETOR roots and files that round 8 did not try.

Before this round: only fold test files that were *equal bytes* were refused; a
``Fold2/test.txt`` that shared some queries with ``Fold1/test.txt`` (a few lines pasted across,
or a fold test file cut from the wrong part) was trained and pooled, those queries counted twice
in the fold table. Now every fold's test query ids are compared with the earlier folds' in one
vectorised pass per fold (:func:`bench.datasets.folds.check_distinct_test_folds`), naming both
files, the first shared id and its line. Within one fold a test query that is also a train or
validation query stays what the README says of split checks: a ``leak_queries`` warning, which
``--strict`` refuses (kept here as a guard). Also: a ``.query`` side file that is a folder was
reported as "no group-size file"; an XGBoost ``.group`` side file beside a file without ``qid:``
was not mentioned (the user saw "no .query file" with the file right there).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_helpers import fuzz_settings

from bench.benchmark.folds import fold_datasets
from bench.cli import main
from bench.data.split_checks import check_splits
from bench.data.svmlight import read_svmlight
from bench.datasets.folds import check_distinct_test_folds, read_fold
from bench.errors import DataError


def _split(first_qid: int, n: int = 4, salt: int = 0) -> str:
    return "".join(f"{(d + q) % 3} qid:{first_qid + q} 1:{(d + salt) / 10:.1f} 2:{q / 10:.1f}\n"
                   for q in range(n) for d in range(3))


def _root(tmp: Path, folds: int = 3) -> Path:
    root = tmp / "letor"
    for k in range(1, folds + 1):
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        (fold / "train.txt").write_text(_split(100 * k + 50, salt=1), encoding="utf-8")
        (fold / "vali.txt").write_text(_split(100 * k + 70, salt=2), encoding="utf-8")
        (fold / "test.txt").write_text(_split(100 * k), encoding="utf-8")
    return root


def test_disjoint_test_folds_still_pass(tmp_path: Path) -> None:
    root = _root(tmp_path)
    check_distinct_test_folds(root, [1, 2, 3])


def test_one_query_of_fold1_pasted_into_fold2s_test_file_is_refused_naming_both(
        tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "Fold2" / "test.txt").write_text(_split(200) + _split(103, 1), encoding="utf-8")
    with pytest.raises(DataError, match=r"query 103 of Fold2's test file .*test.txt, line 13\) "
                                        r"is also in Fold1's") as caught:
        fold_datasets(str(root), [1, 2, 3])
    assert str(root / "Fold1" / "test.txt") in str(caught.value)
    assert fold_datasets(str(root), [1, 3]) == [f"{root}:Fold1", f"{root}:Fold3"]  # not picked


def test_the_first_shared_query_is_named_in_the_later_files_line_order(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "Fold3" / "test.txt").write_text(_split(300, 2) + _split(202, 1) + _split(101, 1),
                                             encoding="utf-8")
    with pytest.raises(DataError, match=r"query 202 of Fold3's test file .*line 7\) is also in "
                                        r"Fold2's"):
        check_distinct_test_folds(root, [1, 2, 3])


def test_a_shared_query_whose_rows_differ_is_still_the_same_query(tmp_path: Path) -> None:
    root = _root(tmp_path)  # other features, other labels: no byte equality to find
    (root / "Fold2" / "test.txt").write_text(_split(200) + "2 qid:100 1:9 2:9\n0 qid:100 1:8\n",
                                             encoding="utf-8")
    with pytest.raises(DataError, match=r"query 100 of Fold2's"):
        check_distinct_test_folds(root, [1, 2])


def test_a_fold_test_file_that_shares_a_query_with_a_part_file_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "letor"
    root.mkdir()
    for i in range(1, 6):  # parts S1..S5: fold 2 tests on S1 (qids 100..103)
        (root / f"S{i}.txt").write_text(_split(100 * i), encoding="utf-8")
    (root / "Fold1").mkdir()  # a shipped Fold1 (as OHSUMED's) whose test holds query 101 too
    for name, first in (("train", 900), ("vali", 950), ("test", 500)):
        (root / "Fold1" / f"{name}.txt").write_text(_split(first) + (_split(101, 1)
                                                    if name == "test" else ""), encoding="utf-8")
    with pytest.raises(DataError, match=r"query 101 of Fold2's test file .*S1.txt.* also in "
                                        r"Fold1's"):
        check_distinct_test_folds(root, [1, 2])


def test_files_with_query_side_files_are_not_compared_by_their_numbered_groups(
        tmp_path: Path) -> None:
    root = tmp_path / "letor"
    for k in (1, 2):  # groups from .query files are numbered 0, 1, ... in each file
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        for name in ("train", "vali", "test"):
            (fold / f"{name}.txt").write_text(f"1 1:{k}\n0 1:0.{k}\n", encoding="utf-8")
            (fold / f"{name}.txt.query").write_text("2\n", encoding="utf-8")
    check_distinct_test_folds(root, [1, 2])


def test_the_command_refuses_a_partial_overlap_in_one_line_before_training(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    (root / "Fold3" / "test.txt").write_text(_split(300) + _split(201, 1), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "--dataset", str(root), "--folds", "1,2,3", "--models", "random",
                 "--seeds", "0", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "query 201 of Fold3" in err
    assert "Fold2" in err
    assert not (out / "runs").exists()


def test_a_test_query_shared_with_its_own_folds_train_is_a_leak_queries_warning(
        tmp_path: Path) -> None:
    """Within a fold: the README's split checks (a warning, refused by --strict)."""
    root = _root(tmp_path)
    (root / "Fold2" / "train.txt").write_text(_split(250, salt=1) + _split(202, 1, salt=5),
                                              encoding="utf-8")
    found = check_splits(read_fold(root, 2))
    leaks = [f for f in found if f.code == "leak_queries"]
    assert [(f.splits, f.count, f.level) for f in leaks] == [(("train", "test"), 1, "warning")]
    assert "202" in leaks[0].message


# ----------------------------------------------------------------- side files of SVMlight


def test_a_query_side_file_that_is_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("1 1:1\n0 1:0\n", encoding="utf-8")
    (tmp_path / "d.txt.query").mkdir()
    with pytest.raises(DataError, match=r"d.txt.query: is a directory: expected a group-size"):
        read_svmlight(tmp_path / "d.txt")


def test_a_query_side_file_that_is_a_dangling_link_is_named(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("1 1:1\n0 1:0\n", encoding="utf-8")
    os.symlink(tmp_path / "gone", tmp_path / "d.txt.query")
    with pytest.raises(DataError, match=r"d.txt.query"):
        read_svmlight(tmp_path / "d.txt")


def test_an_xgboost_group_file_beside_the_data_is_named_with_the_option_to_use_it(
        tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("1 1:1\n0 1:0\n", encoding="utf-8")
    (tmp_path / "d.txt.group").write_text("2\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"d.txt.group beside it, XGBoost's name, is not read: "
                                        r"give it with --query d.txt.group"):
        read_svmlight(tmp_path / "d.txt")
    d = read_svmlight(tmp_path / "d.txt", query_path=tmp_path / "d.txt.group")
    assert d.offsets.tolist() == [0, 2]


@pytest.mark.parametrize(("suffix", "what"), [(".weight", "row weights"),
                                              (".init", "initial scores")])
def test_lightgbm_weight_and_init_side_files_are_not_ignored_in_silence(
        tmp_path: Path, suffix: str, what: str) -> None:
    """LightGBM loads ``rank.train.weight`` / ``rank.train.init`` by itself; ltrbench's runs
    would train other models than LightGBM's own run on the same folder, without a word."""
    (tmp_path / "rank.train").write_text("1 1:1\n0 1:0\n", encoding="utf-8")
    (tmp_path / "rank.train.query").write_text("2\n", encoding="utf-8")
    (tmp_path / f"rank.train{suffix}").write_text("1\n5\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"rank.train: rank.train{suffix} beside the data holds "
                                        rf"{what}, which LightGBM reads"):
        read_svmlight(tmp_path / "rank.train")


def test_the_lightgbm_example_folder_with_a_weight_file_is_refused(tmp_path: Path) -> None:
    from bench.data.folders import read_lightgbm_dir

    for name in ("rank.train", "rank.test"):
        (tmp_path / name).write_text("".join(f"{i % 2} 1:{i}\n" for i in range(20)),
                                     encoding="utf-8")
        (tmp_path / f"{name}.query").write_text("5\n" * 4, encoding="utf-8")
    read_lightgbm_dir(tmp_path)
    (tmp_path / "rank.test.weight").write_text("1\n" * 20, encoding="utf-8")
    with pytest.raises(DataError, match=r"rank.test.weight beside the data holds row weights"):
        read_lightgbm_dir(tmp_path)


@fuzz_settings(30)
@given(tests=st.lists(st.lists(st.integers(1, 12), min_size=1, max_size=5), min_size=2,
                      max_size=4))
def test_random_test_folds_are_refused_exactly_when_two_share_a_query(
        tmp_path_factory: pytest.TempPathFactory, tests: list[list[int]]) -> None:
    """Oracle: Python sets. Each fold's test file holds the given query ids in that order (one
    row each; ids repeated within a file are joined into one block); the check refuses iff a
    later fold holds an id of an earlier one, naming the first such id in the file's order."""
    root = tmp_path_factory.mktemp("folds")
    for k, ids in enumerate(tests, start=1):
        fold = root / f"Fold{k}"
        fold.mkdir()
        blocks = list(dict.fromkeys(ids))  # one contiguous block per query id
        (fold / "test.txt").write_text("".join(f"{q % 3} qid:{q} 1:{k}.{q}\n" for q in blocks),
                                       encoding="utf-8")
        for name in ("train", "vali"):
            (fold / f"{name}.txt").write_text(f"1 qid:{900 + k} 1:1\n", encoding="utf-8")
    want = None
    for k, ids in enumerate(tests[1:], start=2):
        earlier = {q for prev in tests[:k - 1] for q in prev}
        shared = [q for q in dict.fromkeys(ids) if q in earlier]
        if shared:
            want = (shared[0], k)
            break
    if want is None:
        check_distinct_test_folds(root, list(range(1, len(tests) + 1)))
        return
    with pytest.raises(DataError, match=rf"query {want[0]} of Fold{want[1]}'s test file"):
        check_distinct_test_folds(root, list(range(1, len(tests) + 1)))
