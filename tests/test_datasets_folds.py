"""LETOR's five folds (bench/datasets/folds.py): the published rotation, folds built from
S1..S5 equal the shipped fold, the five test splits partition the queries, bad roots refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from bench.datasets.folds import fold_source, parse_folds, read_fold, rotation
from bench.errors import ConfigError, DataError

OHSUMED = Path(__file__).resolve().parents[2] / "shared" / "data" / "letor3-OHSUMED-QueryLevelNorm"
needs_ohsumed = pytest.mark.skipif(not (OHSUMED / "S5.txt").is_file(),
                                   reason=f"LETOR 3.0 OHSUMED not found at {OHSUMED}")

# The MSLR-WEB download page's fold table, typed in by hand: (train parts, vali, test).
PUBLISHED = {1: ((1, 2, 3), 4, 5), 2: ((2, 3, 4), 5, 1), 3: ((3, 4, 5), 1, 2),
             4: ((4, 5, 1), 2, 3), 5: ((5, 1, 2), 3, 4)}


@pytest.mark.parametrize("fold", range(1, 6))
def test_rotation_matches_the_published_fold_table(fold: int) -> None:
    plan = rotation(fold)
    assert (plan.train, plan.vali, plan.test) == PUBLISHED[fold]


@pytest.mark.parametrize("text", ["", " ", "0", "6", "1,1", "1,,2", "1.0", "Fold1", "-1", "١",
                                  "1;2", "all,1", "１"])
def test_parse_folds_refuses_what_is_not_a_fold_list(text: str) -> None:
    with pytest.raises(ConfigError, match="--folds"):
        parse_folds(text)


def test_parse_folds_keeps_the_order_given_and_reads_all() -> None:
    assert parse_folds("5, 1") == (5, 1)
    assert parse_folds("ALL") == (1, 2, 3, 4, 5)


def _part(path: Path, qids: list[int], label_of: int) -> None:
    """A tiny SVMlight part: two rows per query, feature 1 = the query id, labels 0 and
    ``label_of``."""
    path.write_text("".join(f"{lab} qid:{q} 1:{q} 2:{r}\n"
                            for q in qids for r, lab in enumerate((0, label_of))))


def _parts_root(tmp_path: Path) -> Path:
    root = tmp_path / "MQtiny"
    root.mkdir()
    for i in range(1, 6):
        _part(root / f"S{i}.txt", [10 * i, 10 * i + 1], label_of=i % 3)
    return root


@pytest.mark.parametrize("fold", range(1, 6))
def test_a_fold_built_from_parts_holds_the_queries_of_its_parts(tmp_path: Path, fold: int) -> None:
    splits = read_fold(_parts_root(tmp_path), fold)
    train, vali, test = PUBLISHED[fold]
    assert list(np.unique(splits.train.qid)) == sorted(q for i in train for q in (10 * i, 10 * i + 1))
    # train rows keep the part order S(k), S(k+1), S(k+2)
    assert list(splits.train.qid[::2]) == [q for i in train for q in (10 * i, 10 * i + 1)]
    assert list(np.unique(splits.vali.qid)) == [10 * vali, 10 * vali + 1]
    assert list(np.unique(splits.test.qid)) == [10 * test, 10 * test + 1]
    assert splits.meta["fold"] == f"Fold{fold}"
    assert splits.name == "MQtiny"
    assert splits.meta["parts"] == {"train": [f"S{i}" for i in train], "vali": f"S{vali}",
                                    "test": f"S{test}"}


def test_a_root_missing_a_part_is_refused_naming_it(tmp_path: Path) -> None:
    root = _parts_root(tmp_path)
    (root / "S3.txt").unlink()
    with pytest.raises(DataError, match=r"not a file: S3\.txt \(missing\)"):
        read_fold(root, 2)


def test_a_query_in_two_parts_is_refused_naming_both(tmp_path: Path) -> None:
    root = _parts_root(tmp_path)
    _part(root / "S4.txt", [11, 41], label_of=1)  # query 11 is S1's too
    with pytest.raises(DataError, match=r"query 11 is in S1\.txt and S4\.txt"):
        read_fold(root, 1)


def test_a_root_without_folds_or_parts_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no Fold3/ folder and no S1\.txt\.\.S5\.txt"):
        fold_source(tmp_path, 3)


@needs_ohsumed
def test_ohsumed_fold1_built_from_parts_equals_the_shipped_fold1(tmp_path: Path) -> None:
    parts = tmp_path / "OHSUMED"
    parts.mkdir()
    for i in range(1, 6):
        shutil.copy(OHSUMED / f"S{i}.txt", parts)
    built, shipped = read_fold(parts, 1), read_fold(OHSUMED, 1)
    assert built.meta["fold_source"] == "parts"
    assert shipped.meta["fold_source"] == "folder"
    for split in ("train", "vali", "test"):
        a, b = built.splits()[split], shipped.splits()[split]
        np.testing.assert_array_equal(a.X, b.X)
        np.testing.assert_array_equal(a.y, b.y)
        np.testing.assert_array_equal(a.qid, b.qid)
        np.testing.assert_array_equal(a.offsets, b.offsets)


@needs_ohsumed
def test_ohsumed_five_test_folds_partition_its_106_queries() -> None:
    tests = [np.unique(read_fold(OHSUMED, k).test.qid) for k in range(1, 6)]
    every = np.concatenate(tests)
    assert every.size == 106 == np.unique(every).size
    # and each fold's three splits are disjoint
    for k in range(1, 6):
        s = read_fold(OHSUMED, k)
        sets = [set(d.qid.tolist()) for d in (s.train, s.vali, s.test)]
        assert not sets[0] & sets[1]
        assert not sets[0] & sets[2]
        assert not sets[1] & sets[2]
        assert sum(map(len, sets)) == 106


def test_path_colon_fold_reads_that_fold_and_names_the_root(tmp_path: Path) -> None:
    from bench.datasets.resolve import load_dataset

    root = _parts_root(tmp_path)
    splits = load_dataset(f"{root}:Fold4", cache=False)
    assert splits.name == "MQtiny:Fold4"  # the root's name, and the fold as mq2007:Fold4 has it
    assert load_dataset(f"{root}:Fold1", cache=False).name == "MQtiny"
    assert sorted(np.unique(splits.test.qid)) == [30, 31]


def test_a_root_of_parts_alone_reads_fold_1(tmp_path: Path) -> None:
    from bench.datasets.resolve import load_dataset

    splits = load_dataset(str(_parts_root(tmp_path)), cache=False)
    assert splits.meta["fold"] == "Fold1"
    assert sorted(np.unique(splits.test.qid)) == [50, 51]


@pytest.mark.parametrize("option", ["Fold6", "Fold0", "fold", "S1", "1"])
def test_path_colon_other_than_a_fold_is_refused_naming_the_valid_ones(tmp_path: Path,
                                                                       option: str) -> None:
    from bench.datasets.resolve import resolve_spec

    root = _parts_root(tmp_path)
    with pytest.raises(ConfigError, match=r"is not a fold of the LETOR root .*:Fold1 \.\. .*:Fold5"):
        resolve_spec(f"{root}:{option}")


@needs_ohsumed
def test_the_ohsumed_card_offers_five_folds_built_from_its_parts() -> None:
    from bench.datasets.resolve import load_dataset

    splits = load_dataset("ohsumed:Fold3", data_dir=OHSUMED.parent, cache=False)
    assert splits.meta["fold_source"] == "parts"
    # fold 3 tests on S2: its queries, read independently
    s2 = {int(line.split()[1].removeprefix("qid:"))
          for line in (OHSUMED / "S2.txt").read_text().splitlines()}
    assert set(splits.test.qid.tolist()) == s2


def test_a_fold_folder_that_is_incomplete_is_named_not_replaced_by_the_parts(
        tmp_path: Path) -> None:
    """Before: an incomplete Fold3/ beside S1..S5 was ignored and the fold built from the
    parts in silence (h19, round 6)."""
    root = _parts_root(tmp_path)
    (root / "Fold3").mkdir()
    (root / "Fold3" / "train.txt").write_text("")
    with pytest.raises(DataError, match=r"Fold3/ is not a usable fold .*remove it to build fold 3"):
        fold_source(root, 3)
    assert fold_source(root, 2) == "parts"


@pytest.mark.parametrize("kind", ["file", "dangling link"])
def test_a_fold_that_is_a_file_or_a_link_to_nothing_is_named(tmp_path: Path, kind: str) -> None:
    root = _parts_root(tmp_path)
    if kind == "file":
        (root / "Fold1").write_text("not a folder\n")
    else:
        (root / "Fold1").symlink_to(root / "nowhere")
    with pytest.raises(DataError, match=r"Fold1 is not a folder"):
        read_fold(root, 1)
