"""Round 12 (issue 19, bad files): classic LETOR files as a migrating pipeline brings them.

A data engineer moves an existing learning-to-rank pipeline onto ltrbench with the files as they
exist in the wild: MSLR-WEB10K/30K ``Fold<k>/`` folders, Yahoo ``set1.*.txt`` / ``set2.*.txt``,
Istella ``full/``, ``sample/`` (``istella:s``) and ``istella-X/`` (``istella:x``), MQ2007/MQ2008
lines with their ``#docid = ... inc = ... prob = ...`` comments, the shared OHSUMED copy, and
compressed or damaged copies of them. Oracles: scikit-learn's ``load_svmlight_file`` (the reader
the README names as the parser's oracle), hand arithmetic, the input bytes unchanged, and "exit
2 naming the file, the line and what was expected".

Also the leftover of round 11: ``convert --engine dask`` writes the same ``users.csv`` /
``items.csv`` id maps as a local conversion (the same bytes).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import lzma
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dask_kit import in_process_client
from hostile_kit import cli, own_error, refused

SPLITS = {"train": 10, "vali": 4, "test": 4}
QUICK = ["--models", "random", "--seeds", "0", "--quick", "--no-crosscheck", "--no-progress"]


# ------------------------------------------------------------------------------------ helpers

def _lines(n_queries: int, first_qid: int, seed: int, n_features: int = 4,
           tail: str = "") -> str:
    """A small LETOR split: 6 documents a query, labels 0-2, features that follow the label."""
    rnd = np.random.default_rng(seed)
    out = []
    for q in range(n_queries):
        for d in range(6):
            lab = int(rnd.integers(0, 3))
            feats = " ".join(f"{j}:{rnd.random() + 0.3 * lab:.6f}" for j in range(1, n_features + 1))
            out.append(f"{lab} qid:{first_qid + q} {feats}{tail.format(q=q, d=d)}")
    return "\n".join(out) + "\n"


def _splits(n_features: int = 4, tail: str = "") -> dict[str, str]:
    return {name: _lines(n, 1 + 100 * k, k, n_features, tail)
            for k, (name, n) in enumerate(SPLITS.items())}


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, body in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return root


def _flat(root: Path, **replace: str | bytes) -> Path:
    files: dict[str, str | bytes] = {f"{k}.txt": v for k, v in _splits().items()}
    files.update({f"{k}.txt": v for k, v in replace.items()})
    return _write(root, files)


def _load(spec: str | Path, data_dir: Path | None = None) -> Any:
    from bench.datasets.resolve import load_dataset

    return load_dataset(str(spec), data_dir=data_dir, cache=False)


def _sklearn(path: Path, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from sklearn.datasets import load_svmlight_file

    X, y, qid = load_svmlight_file(str(path), n_features=n_features, query_id=True,
                                   dtype=np.float32)
    return X.toarray(), y, qid


def _same_as_sklearn(data: Any, path: Path) -> None:
    X, y, qid = _sklearn(path, data.X.shape[1])
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    np.testing.assert_array_equal(data.qid, qid)


def _mq_split(first_qid: int, label_of_first: int = 1) -> str:
    """MQ2007/MQ2008 lines: 46 features, then ``#docid = GX... inc = ... prob = ...``."""
    out = []
    for q in range(3):
        for d in range(4):
            lab = label_of_first if d == 0 else d % 3
            feats = " ".join(f"{j}:{(q + d + j) % 7 / 7:.6f}" for j in range(1, 47))
            out.append(f"{lab} qid:{first_qid + q} {feats} #docid = GX{q:03d}-{d:02d}-{d}4444840 "
                       f"inc = {d / 4:g} prob = 0.0{d}8662")
    return "\n".join(out) + "\n"


def _mq_folder(data: Path, name: str = "MQ2008", test_label: int = 1) -> Path:
    return _write(data, {f"{name}/Fold1/train.txt": _mq_split(10),
                         f"{name}/Fold1/vali.txt": _mq_split(20),
                         f"{name}/Fold1/test.txt": _mq_split(30, test_label)})


# ------------------------------------------------- the formats in the wild, read as sklearn reads

def test_mq2008_docid_inc_prob_comments_read_by_catalogue_name_as_sklearn_reads_them(
        tmp_path: Path) -> None:
    _mq_folder(tmp_path / "data")
    splits = _load("mq2008", tmp_path / "data")
    for name in ("train", "vali", "test"):
        _same_as_sklearn(getattr(splits, name), tmp_path / "data" / "MQ2008" / "Fold1" / f"{name}.txt")
    assert splits.train.X.shape == (12, 46)


def test_mq2007_folder_given_by_path_reads_its_46_features_as_sklearn(tmp_path: Path) -> None:
    root = _mq_folder(tmp_path, "MQ2007") / "MQ2007"
    splits = _load(root)
    _same_as_sklearn(splits.test, root / "Fold1" / "test.txt")


def test_mslr_lines_ending_in_a_space_read_as_sklearn_reads_them(tmp_path: Path) -> None:
    body = "".join(f"{(q + d) % 5} qid:{q} " + " ".join(f"{j}:{(q * d + j) % 9}" for j in range(1, 137))
                   + " \n" for q in range(1, 4) for d in range(5))
    root = _write(tmp_path / "MSLR-WEB10K", {f"Fold1/{s}.txt": body.replace("qid:", f"qid:{k}")
                                             for k, s in enumerate(("train", "vali", "test"), 1)})
    splits = _load(root)
    assert splits.test.X.shape == (15, 136)
    _same_as_sklearn(splits.test, root / "Fold1" / "test.txt")


def test_yahoo_sparse_lines_with_index_gaps_keep_absent_features_zero(tmp_path: Path) -> None:
    body = ("2 qid:1 3:0.5 10:0.25 700:1\n0 qid:1 1:0.125 699:0.5\n"
            "1 qid:2 10:0.75\n0 qid:2 2:1 3:1\n")
    root = _write(tmp_path / "yahoo", {"set1.train.txt": body, "set1.valid.txt":
                                       body.replace("qid:", "qid:1"),
                                       "set1.test.txt": body.replace("qid:", "qid:2")})
    splits = _load(root)
    t = splits.train
    assert t.X.shape == (4, 700)
    assert (t.X[0, 2], t.X[0, 9], t.X[0, 699], t.X[1, 0], t.X[1, 698]) == (0.5, 0.25, 1, 0.125, 0.5)
    assert int(np.count_nonzero(t.X)) == 8  # every other cell absent, so zero
    _same_as_sklearn(t, root / "set1.train.txt")


def test_scientific_notation_and_signed_features_equal_sklearns(tmp_path: Path) -> None:
    test = ("1 qid:1 1:1e-3 2:1E+02 3:.5 4:5.\n0 qid:1 1:-0 2:+2 3:1e-400 4:-2.5e-1\n"
            "2 qid:2 1:3.4e38 2:1.5E-45 3:0.1 4:1e0\n")
    root = _flat(tmp_path / "ds", test=test)
    got = _load(root).test
    _same_as_sklearn(got, root / "test.txt")
    assert got.X[0].tolist() == [np.float32(1e-3), 100.0, 0.5, 5.0]


def test_a_decimal_between_two_float32s_rounds_as_sklearns_float32_read(tmp_path: Path) -> None:
    # 1 + 2^-24 (+ a little): float64 first, then float32, as scikit-learn reads it
    test = "1 qid:1 1:1.00000005960464477539062500001 2:16777217\n0 qid:1 1:0.1 2:0\n"
    root = _flat(tmp_path / "ds", test=test)
    got = _load(root).test
    _same_as_sklearn(got, root / "test.txt")
    assert got.X[0, 1] == 16777216.0  # 2^24 + 1 has no float32: the even neighbour 2^24
    assert got.X[0, 0] == 1.0  # the float64 read is 1 + 2^-24, a tie: to even, 1


def test_leading_zeros_and_plus_signs_in_indices_and_qids_read_as_sklearn(tmp_path: Path) -> None:
    root = _flat(tmp_path / "ds", test="1 qid:+1 01:1 002:2\n0 qid:01 1:2\n")
    got = _load(root).test
    _same_as_sklearn(got, root / "test.txt")
    assert got.n_queries == 1


@pytest.mark.parametrize("line", [
    "1 qid:1 0000000000000000000001:1 2:2",  # an index of 22 digits that is 1
    "1 qid:1 1:-.5 2:+.5e-1 3:1.e2",
    "-0 qid:-0 1:1",  # label -0 and query 0
    "1 qid:1 1:1e-46 2:0.0000000000000000000000000000000000000000000014",  # to 0, a subnormal
    "1 qid:1 1:3.4028235e38 2:-3.4028235e38",  # float32's largest, written as the C library does
    "1.0e0 qid:1 1:1 2:2 # 3:3 is a comment",
], ids=["index-22-digits", "signed-dots", "minus-zero", "underflow-subnormal", "flt-max",
        "label-1e0-comment"])
def test_spellings_sklearn_reads_are_read_to_the_same_float32s(tmp_path: Path, line: str) -> None:
    root = _flat(tmp_path / "ds", test=f"{line}\n0 qid:{line.split()[1][4:]} 1:0.25\n")
    _same_as_sklearn(_load(root).test, root / "test.txt")


def test_a_value_that_rounds_past_float32s_largest_is_refused_where_sklearn_gives_inf(
        tmp_path: Path) -> None:
    from sklearn.datasets import load_svmlight_file

    root = _flat(tmp_path / "ds", test="1 qid:1 1:3.40282357e38\n0 qid:1 1:1\n")
    X, _, _ = load_svmlight_file(str(root / "test.txt"), query_id=True, dtype=np.float32)
    assert np.isinf(X.toarray()[0, 0])  # the oracle's silent inf
    why = own_error(lambda: _load(root), "test.txt:1", "3.40282357e38", "float32")
    assert why is None, why


def test_a_blank_only_line_between_data_lines_is_skipped_as_sklearn_skips_it(tmp_path: Path) -> None:
    root = _flat(tmp_path / "ds", test="1 qid:1 1:1\n \t \n0 qid:1 1:2\n")
    got = _load(root).test
    _same_as_sklearn(got, root / "test.txt")
    assert got.n_rows == 2


def test_cr_only_line_ends_read_as_the_lf_file(tmp_path: Path) -> None:
    lf = _splits()["test"]
    a = _load(_flat(tmp_path / "lf")).test
    b = _load(_flat(tmp_path / "cr", test=lf.replace("\n", "\r"))).test
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.qid, b.qid)


def test_a_latin1_byte_inside_a_docid_comment_is_part_of_the_comment(tmp_path: Path) -> None:
    root = _flat(tmp_path / "ds", test="1 qid:1 1:1 #docid = caf\xe9\n0 qid:1 1:2\n".encode("latin-1"))
    got = _load(root).test
    _same_as_sklearn(got, root / "test.txt")


def test_extra_files_in_a_fold_folder_are_not_read(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {f"Fold1/{k}.txt": v for k, v in _splits().items()}
    files["Fold1/trainingset.txt"] = "not svmlight at all\n"
    files["Fold1/test2.txt"] = "9 qid:1 1:x\n"
    root = _write(tmp_path / "MQ2007", files)
    _same_as_sklearn(_load(root).test, root / "Fold1" / "test.txt")


def test_the_shared_ohsumed_fold2_test_split_is_s1_as_sklearn_reads_it(shared_data: Path) -> None:
    root = shared_data / "letor3-OHSUMED-QueryLevelNorm"
    splits = _load("ohsumed:Fold2")
    assert splits.name == "ohsumed:Fold2"
    _same_as_sklearn(splits.test, root / "S1.txt")  # the published rotation: Fold2 tests S1
    assert splits.test.n_queries == 21


# ------------------------------------------------------------- catalogue names, folds, variants

def test_istella_x_as_the_dataset_spells_it_reads_the_x_variant(tmp_path: Path) -> None:
    _write(tmp_path / "data", {f"istella-X/{k}.txt": v for k, v in _splits().items()})
    splits = _load("istella:X", tmp_path / "data")
    assert splits.name == "istella:x"
    assert splits.test.n_queries == 4


def test_a_catalogue_fold_in_lower_case_is_read_as_a_path_fold_is(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for k in (1, 2):
        _write(data, {f"MSLR-WEB10K/Fold{k}/{s}.txt": _lines(3, 100 * k + 10 * i, k + i, 136)
                      for i, s in enumerate(("train", "vali", "test"))})
    a, b = _load("mslr-web10k:fold2", data), _load("mslr-web10k:Fold2", data)
    assert a.name == b.name == "mslr-web10k:Fold2"
    np.testing.assert_array_equal(a.test.X, b.test.X)


def test_istella_s_reads_its_sample_folder(tmp_path: Path) -> None:
    _write(tmp_path / "data", {f"istella-s-letor/sample/{k}.txt": v for k, v in _splits().items()})
    splits = _load("istella:s", tmp_path / "data")
    _same_as_sklearn(splits.vali, tmp_path / "data" / "istella-s-letor" / "sample" / "vali.txt")


def test_istella_s_without_its_vali_file_names_the_missing_file(tmp_path: Path) -> None:
    files = {f"istella-s-letor/sample/{k}.txt": v for k, v in _splits().items() if k != "vali"}
    _write(tmp_path / "data", files)
    why = own_error(lambda: _load("istella:s", tmp_path / "data"), "vali.txt", "missing")
    assert why is None, why


def test_istella_full_without_vali_carves_it_from_train_only(tmp_path: Path) -> None:
    sp = _splits()
    root = _write(tmp_path / "istella-letor", {"full/train.txt": sp["train"],
                                                "full/test.txt": sp["test"]})
    splits = _load(root / "full")
    assert splits.train.n_queries + splits.vali.n_queries == 10
    assert not set(splits.vali.qid.tolist()) & set(splits.train.qid.tolist())
    _same_as_sklearn(splits.test, root / "full" / "test.txt")  # the test file untouched


def test_yahoo_set2_reads_the_set2_files(tmp_path: Path) -> None:
    sp = _splits()
    _write(tmp_path / "data", {"yahoo-ltr/set2.train.txt": sp["train"],
                               "yahoo-ltr/set2.valid.txt": sp["vali"],
                               "yahoo-ltr/set2.test.txt": sp["test"]})
    splits = _load("yahoo-ltr:set2", tmp_path / "data")
    _same_as_sklearn(splits.test, tmp_path / "data" / "yahoo-ltr" / "set2.test.txt")


def test_yahoo_ltr_finding_only_set2_files_names_the_variant_to_ask_for(tmp_path: Path) -> None:
    sp = _splits()
    _write(tmp_path / "data", {"yahoo-ltr/set2.train.txt": sp["train"],
                               "yahoo-ltr/set2.valid.txt": sp["vali"],
                               "yahoo-ltr/set2.test.txt": sp["test"]})
    res = cli(tmp_path, "run", "--dataset", "yahoo-ltr", "--data-dir", "data", *QUICK,
              "--out", "res")
    assert refused(res, "set1.train.txt", "missing", "yahoo-ltr:set2") is None, res.err


def test_a_dataset_folder_linked_into_the_data_dir_is_found_by_its_name(tmp_path: Path) -> None:
    real = _mq_folder(tmp_path / "elsewhere") / "MQ2008"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "MQ2008").symlink_to(real, target_is_directory=True)
    splits = _load("mq2008", tmp_path / "data")
    _same_as_sklearn(splits.train, real / "Fold1" / "train.txt")


def test_mq2008_label_3_after_a_docid_comment_is_refused_at_its_file_and_line(
        tmp_path: Path) -> None:
    _mq_folder(tmp_path / "data", test_label=3)
    why = own_error(lambda: _load("mq2008", tmp_path / "data"), "test.txt:1", "label 3", "0..2")
    assert why is None, why


@pytest.mark.parametrize("action", ["info", "verify", "fetch"])
def test_a_datasets_command_given_a_folder_path_says_it_takes_a_catalogue_name(
        tmp_path: Path, action: str) -> None:
    _flat(tmp_path / "MQ2008")
    res = cli(tmp_path, "datasets", action, "./MQ2008", "--data-dir", "data")
    assert refused(res, "./MQ2008", "is a path", "run --dataset") is None, res.err
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


# --------------------------------------------------------------- the names a dataset runs under

def test_path_colon_fold2_is_named_as_a_catalogue_fold2_is(tmp_path: Path) -> None:
    root = tmp_path / "MSLR-WEB10K"
    for k in (1, 2):
        _write(root, {f"Fold{k}/{s}.txt": _lines(3, 100 * k + 10 * i, k + i)
                      for i, s in enumerate(("train", "vali", "test"))})
    assert _load(root).name == "MSLR-WEB10K"
    assert _load(f"{root}:Fold2").name == "MSLR-WEB10K:Fold2"


def test_a_fold_folder_given_by_path_is_named_by_its_root_not_fold1(tmp_path: Path) -> None:
    root = tmp_path / "MQ2007"
    for k in (1, 3):
        _write(root, {f"Fold{k}/{s}.txt": _lines(3, 100 * k + 10 * i, k + i)
                      for i, s in enumerate(("train", "vali", "test"))})
    assert _load(root / "Fold1").name == _load(root).name == "MQ2007"
    assert _load(f"{root}/Fold3/").name == _load(f"{root}:Fold3").name == "MQ2007:Fold3"


def test_fold1_folders_of_two_datasets_run_under_two_names(tmp_path: Path) -> None:
    names = set()
    for ds in ("MSLR-WEB10K", "MQ2007"):
        _write(tmp_path / ds, {f"Fold1/{s}.txt": _lines(4, 10 + 100 * i, i)
                               for i, s in enumerate(("train", "vali", "test"))})
        res = cli(tmp_path, "run", "--dataset", f"{ds}/Fold1", *QUICK, "--out", "res")
        assert res.status == 0, res.err[-600:]
    for manifest in (tmp_path / "res" / "runs").glob("*/manifest.json"):
        names.add(json.loads(manifest.read_text(encoding="utf-8"))["dataset"]["name"])
    assert names == {"MSLR-WEB10K", "MQ2007"}


def test_the_python_api_runs_a_path_fold_under_the_folds_name(tmp_path: Path) -> None:
    from bench.benchmark import run

    root = tmp_path / "MSLR-WEB30K"
    for k in (1, 2):
        _write(root, {f"Fold{k}/{s}.txt": _lines(4, 100 * k + 10 * i, k + i)
                      for i, s in enumerate(("train", "vali", "test"))})
    result = run(f"{root}:Fold2", models=["random"], seeds=[0], quick=True, crosscheck=False,
                 out_dir=tmp_path / "res")
    manifest = json.loads((result.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["dataset"]["name"] == "MSLR-WEB30K:Fold2"


def test_the_python_api_on_a_query_in_two_blocks_names_the_line_and_a_fix(tmp_path: Path) -> None:
    from bench.benchmark import run

    root = _flat(tmp_path / "ds", vali=_lines(1, 201, 1) + _lines(1, 202, 2) + _lines(1, 201, 3))
    why = own_error(lambda: run(str(root), models=["random"], seeds=[0], quick=True,
                                out_dir=tmp_path / "res"),
                    "vali.txt:13", "query id 201", "sort the file by qid")
    assert why is None, why


def test_a_trailing_slash_and_a_link_to_the_folder_keep_the_folder_name(tmp_path: Path) -> None:
    root = _flat(tmp_path / "web10k-fold1")
    (tmp_path / "link").symlink_to(root, target_is_directory=True)
    assert _load(f"{root}/").name == _load(root).name == "web10k-fold1"
    np.testing.assert_array_equal(_load(tmp_path / "link").test.X, _load(root).test.X)


# ----------------------------------------------------------------------------- bad lines, named

@pytest.mark.parametrize("index", ["2147483648", "9223372036854775807", "9223372036854775808",
                                   "18446744073709551616"])
def test_a_huge_feature_index_is_refused_naming_the_line_and_the_index(tmp_path: Path,
                                                                         index: str) -> None:
    root = _flat(tmp_path / "ds", test=f"1 qid:1 1:1\n0 qid:1 {index}:0.5\n")
    why = own_error(lambda: _load(root), "test.txt:2", index)
    assert why is None, why


@pytest.mark.parametrize("token", ["1:nan", "1:NaN", "1:inf", "1:-Infinity", "1:1e39"])
def test_a_feature_that_is_no_finite_float32_is_refused_at_its_line_and_column(
        tmp_path: Path, token: str) -> None:
    root = _flat(tmp_path / "ds", vali=f"1 qid:201 1:1\n0 qid:201 {token}\n")
    why = own_error(lambda: _load(root), "vali.txt:2", token)
    assert why is None, why


@pytest.mark.parametrize("line", ["1 qid:1 2:0.5 2:0.7", "1 qid:1 3:0.5 1:0.7",
                                  "1 qid:1 0:0.5 1:0.7"])
def test_a_repeated_backwards_or_zero_index_is_refused_at_its_column(tmp_path: Path,
                                                                       line: str) -> None:
    root = _flat(tmp_path / "ds", train=_splits()["train"] + line + "\n")
    why = own_error(lambda: _load(root), "train.txt:61", "column")
    assert why is None, why


def test_a_query_in_two_blocks_after_comments_names_its_line_and_no_missing_option(
        tmp_path: Path) -> None:
    body = "# exported\n\n1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:1\n# note\n0 qid:1 1:3\n"
    root = _flat(tmp_path / "ds", test=body)
    why = own_error(lambda: _load(root), "test.txt:7", "row 4", "query id 1", "contiguous")
    assert why is None, why
    from bench.errors import DataError

    with pytest.raises(DataError) as info:
        _load(root)
    assert "--sort-by-qid" not in str(info.value)  # load_dataset and run have no such option
    assert "sort_by_qid" not in str(info.value)


def test_run_on_a_query_in_two_blocks_exits_2_with_a_fix_it_can_use(tmp_path: Path) -> None:
    train = _lines(2, 1, 0) + _lines(1, 2, 5) + _lines(1, 1, 6)
    _flat(tmp_path / "ds", train=train)
    res = cli(tmp_path, "run", "--dataset", "ds", *QUICK, "--out", "res")
    assert refused(res, "train.txt:19", "query id 1", "sort the file by qid") is None, res.err
    assert "--sort-by-qid" not in res.err
    assert not (tmp_path / "res").exists() or not list((tmp_path / "res").rglob("metrics.csv"))


def test_evaluate_on_a_query_in_two_blocks_still_offers_its_sort_option(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("1 qid:1 1:1\n0 qid:2 1:1\n1 qid:1 1:2\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("0.1\n0.2\n0.3\n", encoding="utf-8")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    assert refused(res, "d.txt:3", "--sort-by-qid") is None, res.err


@pytest.mark.parametrize("label", ["0.5", "-1", "1000"])
def test_a_label_the_gain_cannot_take_is_refused_at_its_line_by_path(tmp_path: Path,
                                                                       label: str) -> None:
    root = _flat(tmp_path / "ds", test=f"1 qid:1 1:1\n{label} qid:1 1:2\n")
    why = own_error(lambda: _load(root), "test.txt:2", "label", label)
    assert why is None, why


# ------------------------------------------------------------- compressed and damaged copies

_PACK = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz"])
def test_a_split_that_is_compressed_under_a_txt_name_is_refused_and_kept(tmp_path: Path,
                                                                          kind: str) -> None:
    packed = _PACK[kind](_splits()["test"].encode())
    root = _flat(tmp_path / "ds", test=packed)
    res = cli(tmp_path, "run", "--dataset", "ds", *QUICK, "--out", "res")
    assert refused(res, "test.txt", kind) is None, res.err
    assert (root / "test.txt").read_bytes() == packed


def test_a_txt_gz_that_is_plain_text_is_not_read_in_place_of_the_missing_split(
        tmp_path: Path) -> None:
    sp = _splits()
    _write(tmp_path / "ds", {"train.txt": sp["train"], "vali.txt": sp["vali"],
                             "test.txt.gz": sp["test"]})
    res = cli(tmp_path, "run", "--dataset", "ds", *QUICK, "--out", "res")
    assert refused(res, "test.txt", "missing") is None, res.err


def test_a_zip_given_as_the_dataset_is_refused_with_unzip(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for k, v in _splits().items():
            zf.writestr(f"Fold1/{k}.txt", v)
    (tmp_path / "MQ2007.zip").write_bytes(buf.getvalue())
    res = cli(tmp_path, "run", "--dataset", "MQ2007.zip", *QUICK, "--out", "res")
    assert refused(res, "MQ2007.zip", "zip") is None, res.err


_RAR5 = b"Rar!\x1a\x07\x01\x00" + bytes(range(8, 40))  # the head of a RAR 5 archive
_RAR4 = b"Rar!\x1a\x07\x00" + bytes(range(7, 40))


@pytest.mark.parametrize("head", [_RAR5, _RAR4], ids=["rar5", "rar4"])
def test_letor4s_rar_archive_given_as_the_dataset_is_named_a_rar_archive(tmp_path: Path,
                                                                          head: bytes) -> None:
    (tmp_path / "MQ2007.rar").write_bytes(head)
    res = cli(tmp_path, "run", "--dataset", "MQ2007.rar", *QUICK, "--out", "res")
    assert refused(res, "MQ2007.rar", "RAR archive", "unrar") is None, res.err
    assert (tmp_path / "MQ2007.rar").read_bytes() == head


def _tar_of(folder: Path, out: Path) -> Path:
    with tarfile.open(out, "w") as tf:
        tf.add(folder, arcname=folder.name)
    return out


def test_an_uncompressed_tar_of_the_folder_is_named_a_tar_archive(tmp_path: Path) -> None:
    _tar_of(_flat(tmp_path / "MSLR"), tmp_path / "MSLR.tar")
    res = cli(tmp_path, "run", "--dataset", "MSLR.tar", *QUICK, "--out", "res")
    assert refused(res, "MSLR.tar", "tar archive", "tar -xf") is None, res.err


def test_a_tar_given_as_evaluates_data_file_is_named_a_tar_archive(tmp_path: Path) -> None:
    _tar_of(_flat(tmp_path / "MSLR"), tmp_path / "test.txt")
    (tmp_path / "s.txt").write_text("0.5\n", encoding="utf-8")
    res = cli(tmp_path, "evaluate", "--data", "test.txt", "--scores", "s.txt")
    assert refused(res, "test.txt:1", "tar archive") is None, res.err


def test_a_split_that_is_a_tar_under_its_txt_name_is_named_a_tar_archive(tmp_path: Path) -> None:
    inner = _flat(tmp_path / "inner")
    root = _flat(tmp_path / "ds")
    _tar_of(inner, root / "vali.txt")
    why = own_error(lambda: _load(root), "vali.txt", "tar archive")
    assert why is None, why


def _yahoo_tar(path: Path, compress: str) -> dict[str, bytes]:
    rnd = np.random.default_rng(3)
    members = {"set1.train.txt": "".join(
        f"{rnd.integers(0, 5)} qid:{q} " + " ".join(f"{j}:{rnd.random():.6f}" for j in range(1, 30))
        + "\n" for q in range(1, 200) for _ in range(10)).encode()}
    members["set1.valid.txt"] = _splits()["vali"].encode()
    members["set1.test.txt"] = _splits()["test"].encode()
    with tarfile.open(path, f"w:{compress}") as tf:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tf.addfile(info, io.BytesIO(body))
    return members


def _fetch(tmp_path: Path, archive: Path) -> Any:
    return cli(tmp_path, "datasets", "fetch", "yahoo-ltr", "--url", str(archive),
               "--data-dir", "data", "--no-progress")


def _nothing_fetched(tmp_path: Path) -> bool:
    data = tmp_path / "data"
    return not data.exists() or not any(p.is_file() for p in data.rglob("*.txt"))


@pytest.mark.parametrize(("compress", "cut"), [("gz", 4), ("gz", 8), ("gz", 30), ("bz2", 4)])
def test_fetch_refuses_an_archive_cut_in_its_compressed_trailer(tmp_path: Path, compress: str,
                                                                 cut: int) -> None:
    whole = tmp_path / f"whole.tar.{compress}"
    _yahoo_tar(whole, compress)
    cut_copy = tmp_path / "ltrc_yahoo.tar.bz2"
    body = whole.read_bytes()[:-cut]
    cut_copy.write_bytes(body)
    res = _fetch(tmp_path, cut_copy)
    assert refused(res, "ltrc_yahoo.tar.bz2", "truncated") is None, res.err[-600:]
    assert _nothing_fetched(tmp_path)
    assert cut_copy.read_bytes() == body


def test_fetch_refuses_a_gzip_archive_whose_crc_does_not_match(tmp_path: Path) -> None:
    whole = tmp_path / "whole.tar.gz"
    _yahoo_tar(whole, "gz")
    body = bytearray(whole.read_bytes())
    body[-6] ^= 0xFF  # inside the CRC-32 of the gzip trailer
    damaged = tmp_path / "ltrc_yahoo.tar.bz2"
    damaged.write_bytes(bytes(body))
    res = _fetch(tmp_path, damaged)
    assert refused(res, "ltrc_yahoo.tar.bz2", "CRC") is None, res.err[-600:]
    assert _nothing_fetched(tmp_path)


@pytest.mark.parametrize("compress", ["gz", "bz2", ""])
def test_fetch_of_an_intact_archive_unpacks_every_member_byte_for_byte(tmp_path: Path,
                                                                       compress: str) -> None:
    archive = tmp_path / "ltrc_yahoo.tar.bz2"
    members = _yahoo_tar(archive, compress)
    res = _fetch(tmp_path, archive)
    assert res.status == 0, res.err[-600:]
    for name, body in members.items():
        assert (tmp_path / "data" / "yahoo-ltr" / name).read_bytes() == body


def test_fetch_of_a_split_file_named_like_the_archive_is_refused_and_kept(tmp_path: Path) -> None:
    fake = tmp_path / "ltrc_yahoo.tar.bz2"
    fake.write_text(_splits()["train"], encoding="utf-8")
    before = fake.read_bytes()
    res = _fetch(tmp_path, fake)
    assert refused(res, "ltrc_yahoo.tar.bz2", "not a tar.bz2 archive") is None, res.err[-600:]
    assert fake.read_bytes() == before
    assert _nothing_fetched(tmp_path)


# -------------------------------------------------------- convert's id maps on both engines

_C = ["--user", "user", "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
      "--target-size", "1", "--min-history", "2", "--negatives", "3", "--features", "user,item"]


def _ratings(path: Path, user: str, item: str) -> None:
    lines = ["user,item,rating,timestamp"]
    for u in range(12):
        for j in range(14):
            lines.append(f"{user.format(u)},{item.format((u * 7 + j * 3) % 40)},"
                         f"{(u + j) % 5 + 1},{1_000_000_000 + u * 50 + j}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


client = in_process_client


@contextlib.contextmanager
def _on(client: Any) -> Any:
    """``--engine dask`` on ``client`` (one in-process worker) instead of a cluster of worker
    processes of its own: these cases are about the files a conversion writes, not the cluster
    (its sockets and processes have their own tests)."""
    from bench.engines import dask_engine

    @contextlib.contextmanager
    def given(options: Any) -> Any:
        yield client

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dask_engine, "open_cluster", given)
        yield


@pytest.fixture(scope="module")
def both_engines(tmp_path_factory: pytest.TempPathFactory, client: Any) -> Path:
    """Text user ids (``u0``...), item ids where ``7`` and ``07`` are one id: converted by the
    local engine into ``local/`` and by Dask into ``dask/``."""
    pytest.importorskip("dask.distributed")
    root = tmp_path_factory.mktemp("maps")
    _ratings(root / "r.csv", "u{}", "{}")
    rows = [ln.split(",") for ln in (root / "r.csv").read_text(encoding="utf-8").splitlines()]
    sevens = 0
    for row in rows[1:]:
        if row[1] == "7":  # every other 7 written 07: one id, its first spelling kept
            row[1] = "7" if sevens % 2 else "07"
            sevens += 1
        elif row[1] == "3":  # an item id that is text
            row[1] = "i3"
    (root / "r.csv").write_text("".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    (root / "before.bin").write_bytes((root / "r.csv").read_bytes())  # outside both outputs
    res = cli(root, "convert", "--ratings", "r.csv", *_C, "--out", "local")
    assert res.status == 0, res.err[-800:]
    with _on(client):
        res = cli(root, "convert", "--ratings", "r.csv", *_C, "--out", "dask", "--engine", "dask",
                  "--workers", "1")
    assert res.status == 0, res.err[-800:]
    return root


@pytest.mark.parametrize("name", ["users.csv", "items.csv"])
def test_dask_convert_writes_the_id_maps_the_local_engine_writes_byte_for_byte(
        both_engines: Path, name: str) -> None:
    local = both_engines / "local" / name
    assert local.is_file()
    assert (both_engines / "dask" / name).read_bytes() == local.read_bytes()


def test_dask_convert_lists_its_id_maps_in_the_summary(both_engines: Path) -> None:
    summary = json.loads((both_engines / "dask" / "summary.json").read_text(encoding="utf-8"))
    assert {"users.csv", "items.csv"} <= set(summary["files"]), summary["files"]


def test_the_dask_shards_user_numbers_are_the_rows_of_users_csv(both_engines: Path) -> None:
    import pandas as pd

    users = pd.read_csv(both_engines / "dask" / "users.csv")
    assert users["user"].tolist() == list(range(12))
    assert users["external_id"].tolist() == sorted(f"u{u}" for u in range(12))
    shards = sorted((both_engines / "dask" / "test").glob("part-*.parquet"))
    qids = pd.concat([pd.read_parquet(s, columns=["qid"]) for s in shards])["qid"]
    assert set(qids.tolist()) <= set(users["user"].tolist())


def test_an_item_spelled_07_and_7_is_one_row_of_items_csv_first_spelling_kept(
        both_engines: Path) -> None:
    import pandas as pd

    items = pd.read_csv(both_engines / "dask" / "items.csv", dtype=str)
    seven = [e for e in items["external_id"].tolist() if e.lstrip("0") == "7"]
    assert len(seven) == 1
    first = next(ln.split(",")[1] for ln in
                 (both_engines / "r.csv").read_text(encoding="utf-8").splitlines()[1:]
                 if ln.split(",")[1].lstrip("0") == "7")
    assert seven == [first]


def test_a_dask_conversion_of_integer_ids_writes_no_id_map(tmp_path: Path, client: Any) -> None:
    pytest.importorskip("dask.distributed")
    _ratings(tmp_path / "r.csv", "{}", "{}")
    with _on(client):
        res = cli(tmp_path, "convert", "--ratings", "r.csv", *_C, "--out", "o", "--engine",
                  "dask", "--workers", "1")
    assert res.status == 0, res.err[-800:]
    assert not (tmp_path / "o" / "users.csv").exists()
    assert not (tmp_path / "o" / "items.csv").exists()
    summary = json.loads((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    assert not {"users.csv", "items.csv"} & set(summary["files"])


def test_the_input_is_unchanged_by_both_conversions(both_engines: Path) -> None:
    assert (both_engines / "r.csv").read_bytes() == (both_engines / "before.bin").read_bytes()


def test_dask_convert_of_ids_beyond_int64_writes_the_local_engines_users_csv(
        tmp_path: Path, client: Any) -> None:
    pytest.importorskip("dask.distributed")
    _ratings(tmp_path / "r.csv", str(10**20) + "{}", "{}")  # 1000...0u: beyond int64
    for out, extra in (("local", []), ("dask", ["--engine", "dask", "--workers", "1"])):
        with _on(client):
            res = cli(tmp_path, "convert", "--ratings", "r.csv", *_C, "--out", out, *extra)
        assert res.status == 0, res.err[-800:]
    local = (tmp_path / "local" / "users.csv").read_bytes()
    assert local.splitlines()[1] == b"0," + str(10**20).encode() + b"0"
    assert (tmp_path / "dask" / "users.csv").read_bytes() == local
    assert not (tmp_path / "dask" / "items.csv").exists()  # item ids kept as written
