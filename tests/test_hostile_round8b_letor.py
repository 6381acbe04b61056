"""Round 8b: bad files of the classic LETOR formats (MSLR-WEB, MQ2007/8, OHSUMED, Yahoo, Istella).

Before this round: a file loaded under a catalogue name was read whatever its shape: a label 5
in MSLR-WEB (labels 0-4), 3 in MQ2007 (0-2) or 1.5, and a feature index 137 in MSLR-WEB (136
features) trained without a word; a test (or validation) file holding the training file's query
ids (a file of another fold in the split's place) gave no warning when its rows differed. Now a
card states ``n_features`` and ``max_label`` and such a file is refused at its line
(:mod:`bench.datasets.card_checks`), and ``leak_queries`` warns of shared query ids
(:mod:`bench.data.split_checks`). The other cases were already right and are kept as guards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import with_shared_data

from bench.data.folders import read_folder
from bench.data.split_checks import check_splits
from bench.data.svmlight import read_svmlight
from bench.datasets.resolve import load_dataset, resolve_spec
from bench.errors import ConfigError, DataError

MQ_LINE = "{label} qid:{q} 1:0.056537 2:0.000000 46:0.5 #docid = GX029-35-5894638 inc = 1 prob = 0.02\n"


def _files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def _mq(tmp: Path, test: str, dir: str = "MQ2007") -> str:
    _files(tmp / dir, {"Fold1/train.txt": MQ_LINE.format(label=1, q=1) + MQ_LINE.format(label=0, q=1),
                       "Fold1/vali.txt": MQ_LINE.format(label=2, q=2) + MQ_LINE.format(label=0, q=2),
                       "Fold1/test.txt": test})
    return str(tmp)


# ----------------------------------------------------------------- against the card's shape


@pytest.mark.parametrize("label", ["3", "1.5", "-1"])
def test_a_label_outside_the_cards_range_is_refused_at_its_line(tmp_path: Path, label: str) -> None:
    test = MQ_LINE.format(label=1, q=9) + MQ_LINE.format(label=label, q=9)
    with pytest.raises(DataError, match=rf"test.txt:2.*label {label} is not a label of 'mq2007'.*0\.\.2"):
        load_dataset("mq2007", data_dir=_mq(tmp_path, test))


def test_mslr_label_5_is_refused(tmp_path: Path) -> None:
    files = {f"Fold1/{s}.txt": f"{1 if s != 'test' else 5} qid:{i} 1:0.5 136:1\n0 qid:{i} 1:0\n"
             for i, s in enumerate(("train", "vali", "test"))}
    _files(tmp_path / "MSLR-WEB10K", files)
    with pytest.raises(DataError, match=r"Fold1/test.txt:1.*label 5 .*'mslr-web10k'.*0\.\.4"):
        load_dataset("mslr-web10k", data_dir=str(tmp_path))


def test_a_feature_beyond_the_cards_count_is_refused_at_its_line(tmp_path: Path) -> None:
    test = MQ_LINE.format(label=1, q=9) + "0 qid:9 1:0.1 47:0.3\n"
    with pytest.raises(DataError, match=r"test.txt:2.*feature 47: .*'mq2007' has 46 features"):
        load_dataset("mq2007", data_dir=_mq(tmp_path, test))


def test_an_explicit_zero_beyond_the_cards_count_is_refused_naming_the_files(tmp_path: Path) -> None:
    test = MQ_LINE.format(label=1, q=9) + "0 qid:9 1:0.1 47:0\n"
    with pytest.raises(DataError, match=r"'mq2007' has 46 features.*holds index 47"):
        load_dataset("mq2007", data_dir=_mq(tmp_path, test))


def test_yahoo_set1_file_with_index_701_is_refused(tmp_path: Path) -> None:
    _files(tmp_path / "yahoo-ltr", {"set1.train.txt": "1 qid:1 1:1\n0 qid:1 1:0\n",
                                    "set1.valid.txt": "1 qid:2 1:1\n0 qid:2 1:0\n",
                                    "set1.test.txt": "1 qid:3 1:1\n0 qid:3 701:0.5\n"})
    with pytest.raises(DataError, match=r"set1.test.txt:2.*feature 701"):
        load_dataset("yahoo-ltr:set1", data_dir=str(tmp_path))


def test_istella_full_label_5_is_refused_in_the_carved_training_file(tmp_path: Path) -> None:
    train = "".join(f"{5 if q == 3 else 1} qid:{q} 1:1\n0 qid:{q} 1:0\n" for q in range(1, 6))
    _files(tmp_path / "istella-letor", {"full/train.txt": train,
                                        "full/test.txt": "1 qid:9 1:1\n0 qid:9 1:0\n"})
    with pytest.raises(DataError, match=r"label 5 is not a label of 'istella:full'"):
        load_dataset("istella:full", data_dir=str(tmp_path))


def test_the_shared_ohsumed_copy_matches_its_card(shared_data: Path, tmp_path: Path) -> None:
    s = load_dataset("ohsumed", data_dir=with_shared_data(tmp_path))
    assert s.train.n_features == 45
    assert float(s.test.y.max()) == 2.0


def test_a_folder_loaded_by_path_is_not_held_to_a_card(tmp_path: Path) -> None:
    root = Path(_mq(tmp_path, MQ_LINE.format(label=3, q=9) + "0 qid:9 47:1\n")) / "MQ2007"
    assert load_dataset(str(root)).test.n_features == 47


# ----------------------------------------------------------------- folds


@pytest.mark.parametrize("spec", ["mslr-web10k:Fold6", "mslr-web10k:Fold0", "mq2007:fold6"])
def test_a_fold_the_card_does_not_have_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"has no fold"):
        resolve_spec(spec)


def test_a_fold_folder_missing_its_test_file_is_named(tmp_path: Path) -> None:
    _files(tmp_path / "MSLR-WEB10K", {"Fold1/train.txt": "1 qid:1 1:1\n", "Fold1/vali.txt": "1 qid:2 1:1\n"})
    with pytest.raises(DataError, match=r"Fold1.*test.txt is missing"):
        load_dataset("mslr-web10k", data_dir=str(tmp_path))


def _leaks(tmp: Path, files: dict[str, str | bytes]) -> list[tuple[tuple[str, ...], int]]:
    found = check_splits(read_folder(_files(tmp / "ds", files)))
    return [(f.splits, f.count) for f in found if f.code == "leak_queries"]


def test_a_test_file_with_the_training_queries_warns_leak_queries(tmp_path: Path) -> None:
    assert _leaks(tmp_path, {"Fold1/train.txt": "1 qid:1 1:0.5\n0 qid:1 1:0.2\n",
                             "Fold1/vali.txt": "1 qid:5 1:0.5\n0 qid:5 1:0.1\n",
                             "Fold1/test.txt": "1 qid:1 1:0.9\n0 qid:1 1:0.7\n"}) == [(("train", "test"), 1)]


def test_a_validation_file_with_the_test_queries_warns_leak_queries(tmp_path: Path) -> None:
    assert _leaks(tmp_path, {"Fold1/train.txt": "1 qid:1 1:0.5\n0 qid:1 1:0.2\n",
                             "Fold1/vali.txt": "1 qid:9 1:0.5\n0 qid:9 1:0.1\n",
                             "Fold1/test.txt": "1 qid:9 1:0.9\n0 qid:9 1:0.7\n"}) == [(("vali", "test"), 1)]


def test_lightgbm_numbered_queries_are_not_a_query_leak(tmp_path: Path) -> None:
    found = _leaks(tmp_path, {"rank.train": "1 1:0.5\n0 1:0.2\n1 1:0.3\n0 1:0.1\n",
                              "rank.train.query": "2\n2\n", "rank.test": "1 1:0.9\n0 1:0.7\n",
                              "rank.test.query": "2\n"})
    assert found == []


def test_the_shared_ohsumed_fold1_has_no_query_leak(shared_data: Path) -> None:
    found = check_splits(read_folder(shared_data / "letor3-OHSUMED-QueryLevelNorm"))
    assert not [f for f in found if f.code == "leak_queries"]


def test_a_test_file_that_is_the_train_file_by_link_is_refused(tmp_path: Path) -> None:
    root = _files(tmp_path / "ds", {"Fold1/train.txt": "1 qid:1 1:0.5\n", "Fold1/vali.txt": "1 qid:2 1:1\n"})
    (root / "Fold1" / "test.txt").symlink_to(root / "Fold1" / "train.txt")
    with pytest.raises(DataError, match=r"are one file"):
        read_folder(root)


# ----------------------------------------------------------------- line-level quirks (guards)


def _read(tmp: Path, text: str | bytes, **kw: object) -> tuple[list[list[float]], list[float], list[int]]:
    p = _files(tmp, {"f.txt": text}) / "f.txt"
    d = read_svmlight(p, **kw)  # type: ignore[arg-type]
    return d.X.tolist(), d.y.tolist(), d.offsets.tolist()


def test_a_comment_holding_qid_is_a_comment(tmp_path: Path) -> None:
    X, y, off = _read(tmp_path, "1 qid:1 1:0.5 #docid = GX qid:7 inc = 1\n0 qid:1 1:0.25\n")
    assert (X, y, off) == ([[0.5], [0.25]], [1.0, 0.0], [0, 2])


def test_trailing_tabs_and_crlf_on_some_lines_read_as_clean_lines(tmp_path: Path) -> None:
    mixed = _read(tmp_path, b"1 qid:1 1:0.5\t\r\n0 qid:1 1:0.25\n2 qid:2 1:0.125\t\r\n")
    assert mixed == ([[0.5], [0.25], [0.125]], [1.0, 0.0, 2.0], [0, 2, 3])


def test_unsorted_but_contiguous_qids_keep_their_groups(tmp_path: Path) -> None:
    assert _read(tmp_path, "1 qid:3 1:0.5\n0 qid:3 1:0.25\n2 qid:1 1:0.125\n")[2] == [0, 2, 3]


@pytest.mark.parametrize(("line", "where"), [("1 qid:1 2:0.5 1:0.2\n", "strictly increasing"),
                                        ("1 qid:1 1:0.5 1:0.2\n", "strictly increasing"),
                                        ("1 qid:1 0:0.5\n", "start at 1"),
                                        ("1 1:0.5 qid:1\n", "right after the label"),
                                        ("1 qid:1.0 1:0.5\n", "must be an integer"),
                                        ("1 qid:1 1:0.5 docid = GX\n", "expected 'index:value'")])
def test_malformed_letor_lines_are_refused_at_their_column(tmp_path: Path, line: str,
                                                           where: str) -> None:
    with pytest.raises(DataError, match=rf"f.txt:1: .*column \d+.*{where}"):
        _read(tmp_path, line)


@pytest.mark.parametrize(("sizes", "what"), [("2\n2\n", "add up to 4 rows but the data has 3"),
                                        ("3\n0\n", "out of range"), ("4\n-1\n", "out of range"),
                                        ("1.5\n1.5\n", "not an integer"),
                                        ("# sizes\n3\n", "not an integer")])
def test_bad_query_sidecars_are_refused_naming_the_sidecar(tmp_path: Path, sizes: str,
                                                          what: str) -> None:
    _files(tmp_path, {"q.txt": sizes})
    with pytest.raises(DataError, match=rf"q.txt.*{what}"):
        _read(tmp_path, "1 1:0.5\n0 1:0.2\n1 1:0.3\n", query_path=tmp_path / "q.txt")


def test_a_hash_glued_to_a_value_starts_the_comment_as_in_sklearn(tmp_path: Path) -> None:
    """sklearn's ``load_svmlight_file`` cuts each line at its first '#' (``_svmlight_format_fast``);
    ltrbench reads the same numbers."""
    sklearn = pytest.importorskip("sklearn.datasets")
    p = _files(tmp_path, {"g.txt": "1 qid:1 1:0.5#3 2:1\n0 qid:1 1:0.25 2:1\n"}) / "g.txt"
    X, y, _qid = sklearn.load_svmlight_file(str(p), query_id=True, n_features=2)
    d = read_svmlight(p, n_features=2)
    assert np.array_equal(d.X, X.toarray().astype(np.float32))
    assert np.array_equal(d.y, y)
