"""Round 18 (issue 19): a dataset curator's LETOR copies, as they are on a lab's disk.

A curator keeps the lab's copies of MSLR-WEB10K/30K, MQ2007/2008, OHSUMED, Yahoo LTR set 1/2 and
Istella, and points ltrbench at them: ``datasets list/info/fetch/verify``, ``run --dataset PATH``
over ``Fold1..Fold5`` and ``S1..S5`` layouts, ``crosscheck`` on a path, ``evaluate --data``.
Each case is a tiny file with one quirk of the real ones (Yahoo's sparse ids, MQ2007's
``#docid`` comments, Istella's 220 features, a BOM, CR line ends, a page saved by a failed
download, a copy edited by hand, a stray fold beside the parts ...). Oracles: scikit-learn's
``load_svmlight_file`` (the parser's documented oracle), hand arithmetic, SHA-256 digests of the
files, and "exit 2 naming the file, the line and what was expected".
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, refused

sklearn_datasets = pytest.importorskip("sklearn.datasets")

QUICK = ["--models", "random", "--seeds", "0", "--quick", "--no-crosscheck", "--no-progress"]
OHSUMED = "letor3-OHSUMED-QueryLevelNorm"


# ------------------------------------------------------------------------------------ helpers

def _lines(n_queries: int, first_qid: int, seed: int = 0, ids: tuple[int, ...] = (1, 2, 3, 4),
           tail: str = "") -> str:
    """A small LETOR split: 5 documents a query, labels 0-2, features that follow the label."""
    rnd = np.random.default_rng(seed)
    out = []
    for q in range(n_queries):
        for _ in range(5):
            lab = int(rnd.integers(0, 3))
            feats = " ".join(f"{j}:{rnd.random() + 0.3 * lab:.4f}" for j in ids)
            out.append(f"{lab} qid:{first_qid + q} {feats}{tail}")
    return "\n".join(out) + "\n"


def _splits(ids: tuple[int, ...] = (1, 2, 3, 4), **over: str | bytes | None) -> dict[str, str | bytes]:
    files: dict[str, str | bytes | None] = {
        "train.txt": _lines(6, 1, 0, ids), "vali.txt": _lines(3, 101, 1, ids),
        "test.txt": _lines(3, 201, 2, ids)}
    files.update(over)
    return {k: v for k, v in files.items() if v is not None}


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, body in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return root


def _load(spec: str | Path, data_dir: Path) -> object:
    from bench.datasets.resolve import load_dataset

    return load_dataset(str(spec), data_dir=str(data_dir), cache=False)


def _sk(path: Path, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y, q = sklearn_datasets.load_svmlight_file(str(path), n_features=n_features,
                                                  query_id=True)
    return X.toarray().astype(np.float32), y, q


def _same_as_sklearn(split: object, path: Path) -> None:
    X, y, q = _sk(path, split.n_features)  # type: ignore[attr-defined]
    assert np.array_equal(split.X, X)  # type: ignore[attr-defined]
    assert np.array_equal(split.y, y)  # type: ignore[attr-defined]
    assert np.array_equal(split.qid, q)  # type: ignore[attr-defined]


def _refused_load(spec: str | Path, data_dir: Path, *words: str) -> None:
    _, exc = call(lambda: _load(spec, data_dir))
    problem = api_refused(exc, *words)
    assert problem is None, problem


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ohsumed_copy(root: Path, shared: Path, *, copied: tuple[str, ...] = ()) -> Path:
    """A data directory holding OHSUMED: the files named in ``copied`` are real copies (to be
    edited), the others links to the shared reference copy (the card's digests hold for them)."""
    folder = root / "dd" / OHSUMED
    for src in sorted((shared / OHSUMED).rglob("*")):
        if not src.is_file():
            continue
        rel = src.relative_to(shared / OHSUMED).as_posix()
        dst = folder / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if rel in copied:
            shutil.copyfile(src, dst)
        else:
            os.symlink(src, dst)
    return root / "dd"


def _flip_a_digit(path: Path) -> None:
    """One digit of the first feature value changed: the file still parses, the numbers differ."""
    body = path.read_bytes()
    i = body.index(b" 1:") + 3
    path.write_bytes(body[:i] + (b"8" if body[i:i + 1] == b"9" else b"9") + body[i + 1:])


@pytest.fixture
def ohsumed(shared_data: Path) -> Path:
    if not (shared_data / OHSUMED).is_dir():
        pytest.skip("the shared OHSUMED copy is absent")
    return shared_data


# ------------------------------------------------------------ quirks read as scikit-learn reads

MQ2007_TAIL = " #docid = GX008-86-4444840 inc = 1 prob = 0.086622"


@pytest.mark.parametrize(("quirk", "head"), [
    ("mq2007_docid_comments", "2 qid:1 1:0.5 3:0.25 #docid = GX000-00-0000000 inc = 1 prob = 0.02\n"),
    ("exponents_and_minus_zero", "1 qid:1 1:1.5e-3 2:-0 3:7E-08 4:-0.0\n"),
    ("labels_2_0_and_plus_1_and_2_dot", "2.0 qid:1 1:0.5\n+1 qid:1 2:0.5\n2. qid:1 3:0.5\n"),
    ("tabs_and_trailing_blanks", "1\tqid:1\t1:0.5\t2:0.25 \t \n"),
    ("a_comment_that_holds_qid_and_features", "1 qid:1 1:0.5 #docid = x qid:9 2:0.9\n"),
    ("leading_zero_index_and_qid", "1 qid:01 01:0.5 004:0.75\n"),
    ("underflow_to_zero", "1 qid:1 1:1e-400 2:4.9e-324\n"),
    ("comment_and_blank_lines", "# exported by the lab's script\n\n1 qid:1 1:0.5\n"),
])
def test_letor_quirk_reads_as_sklearn_reads(tmp_path: Path, quirk: str, head: str) -> None:
    folder = _write(tmp_path / quirk, _splits(**{"train.txt": head + _lines(6, 2, 0)}))
    splits = _load(folder, tmp_path / "dd")
    _same_as_sklearn(splits.train, folder / "train.txt")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("quirk", "mangle"), [
    ("utf8_bom", lambda b: b"\xef\xbb\xbf" + b),
    ("windows_line_ends", lambda b: b.replace(b"\n", b"\r\n")),
    ("old_mac_line_ends", lambda b: b.replace(b"\n", b"\r")),
    ("no_trailing_newline", lambda b: b.rstrip(b"\n")),
    ("mixed_line_ends", lambda b: b.replace(b"\n", b"\r\n", 7)),
])
def test_text_form_of_a_split_does_not_change_its_matrix(tmp_path: Path, quirk: str,
                                                        mangle: object) -> None:
    plain = _lines(6, 1, 0).encode()
    folder = _write(tmp_path / quirk, _splits(**{"test.txt": mangle(plain)}))  # type: ignore[operator]
    ref = _write(tmp_path / "ref", _splits(**{"test.txt": plain}))
    got, want = _load(folder, tmp_path / "dd"), _load(ref, tmp_path / "dd")
    assert np.array_equal(got.test.X, want.test.X)  # type: ignore[attr-defined]
    assert np.array_equal(got.test.y, want.test.y)  # type: ignore[attr-defined]
    assert np.array_equal(got.test.qid, want.test.qid)  # type: ignore[attr-defined]
    _same_as_sklearn(want.test, ref / "test.txt")  # type: ignore[attr-defined]


def test_yahoo_sparse_ids_absent_from_train_keep_their_column_in_every_split(
        tmp_path: Path) -> None:
    # Yahoo set 1: ids up to 700 with gaps; 300 and 700 occur only in the test file
    files = {"train.txt": _lines(5, 1, 0, (1, 5, 699)), "vali.txt": _lines(2, 50, 1, (1, 5)),
             "test.txt": _lines(2, 80, 2, (1, 5, 300, 700))}
    folder = _write(tmp_path / "yahoo", files)
    splits = _load(folder, tmp_path / "dd")
    for name in ("train", "vali", "test"):
        data = getattr(splits, name)
        assert data.X.shape[1] == 700
        _same_as_sklearn(data, folder / f"{name}.txt")
    assert not splits.train.X[:, 299].any()
    assert splits.test.X[:, 299].any()


def test_istella_220_features_under_the_catalogue_name_read_as_sklearn(tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {
        "istella-letor/full/train.txt": _lines(5, 1, 0, (1, 2, 219, 220)),
        "istella-letor/full/test.txt": _lines(2, 80, 2, (1, 220))})
    splits = _load("istella", dd)
    assert splits.test.X.shape == (10, 220)  # type: ignore[attr-defined]
    _same_as_sklearn(splits.test, dd / "istella-letor/full/test.txt")  # type: ignore[attr-defined]


# ------------------------------------------------------------------ refused, naming file and line

@pytest.mark.parametrize(("token", "words"), [
    ("0:0.5", ("'0:0.5'", "start at 1")),
    ("2:0.5 2:0.7", ("'2:0.7'", "strictly increasing")),
    ("3:0.5 1:0.7", ("'1:0.7'", "strictly increasing")),
    ("1:nan", ("'1:nan'", "plain decimal")),
    ("1:-inf", ("'1:-inf'", "plain decimal")),
    ("1:1,5", ("'1:1,5'", "plain decimal")),
    ("1:0.5 3:", ("'3:'", "plain decimal")),
    ("1:3.5e38", ("'1:3.5e38'", "float32")),
])
def test_a_bad_feature_token_on_line_2_is_named(tmp_path: Path, token: str,
                                               words: tuple[str, ...]) -> None:
    body = "1 qid:1 1:0.5\n0 qid:1 " + token + "\n" + _lines(5, 2)
    folder = _write(tmp_path / "ds", _splits(**{"train.txt": body}))
    _refused_load(folder, tmp_path / "dd", "train.txt:2", *words)


def test_istella_text_query_id_is_named_with_its_token(tmp_path: Path) -> None:
    folder = _write(tmp_path / "ds", _splits(**{"test.txt": "1 qid:q-17 1:0.5\n"}))
    _refused_load(folder, tmp_path / "dd", "test.txt:1", "'qid:q-17'", "integer")


def test_a_query_split_in_two_blocks_is_refused_at_its_return(tmp_path: Path) -> None:
    body = _lines(2, 1) + _lines(2, 3) + "2 qid:1 1:0.9 2:0.1 3:0.1 4:0.1\n"
    folder = _write(tmp_path / "ds", _splits(**{"train.txt": body}))
    _refused_load(folder, tmp_path / "dd", "train.txt:21", "query id 1", "contiguous")


def test_negative_label_of_a_path_dataset_is_named(tmp_path: Path) -> None:
    folder = _write(tmp_path / "ds", _splits(**{"vali.txt": "0 qid:7 1:0.2\n-1 qid:7 1:0.5\n"}))
    _refused_load(folder, tmp_path / "dd", "vali.txt:2", "label -1")


def test_mslr_label_5_under_the_catalogue_name_is_not_the_published_file(tmp_path: Path) -> None:
    good = _lines(3, 1, 0, (1, 136))
    dd = _write(tmp_path / "dd", {
        "MSLR-WEB10K/Fold1/train.txt": good + "5 qid:9 1:0.5\n",
        "MSLR-WEB10K/Fold1/vali.txt": _lines(2, 50, 1, (1, 136)),
        "MSLR-WEB10K/Fold1/test.txt": _lines(2, 80, 2, (1, 136))})
    _refused_load("mslr-web10k", dd, "train.txt:16", "label 5", "0..4")


def test_mq2008_feature_47_under_the_catalogue_name_is_named(tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {
        "MQ2008/Fold1/train.txt": _lines(3, 1, 0, (1, 46), MQ2007_TAIL),
        "MQ2008/Fold1/vali.txt": _lines(2, 50, 1, (1, 46)),
        "MQ2008/Fold1/test.txt": "1 qid:80 1:0.5 46:0.25\n0 qid:80 2:0.5 47:0.25" + MQ2007_TAIL})
    _refused_load("mq2008", dd, "test.txt:2", "feature 47", "46 features")


def test_ohsumed_copy_edited_in_fold1_names_the_card_digest(tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed, copied=("Fold1/test.txt",))
    with (dd / OHSUMED / "Fold1" / "test.txt").open("a", encoding="utf-8") as f:
        f.write("1 qid:999 1:0.5 46:0.25\n")  # a row appended by hand, beyond 45 features too
    _refused_load("ohsumed", dd, "Fold1/test.txt", "differs from the 'ohsumed' card")


@pytest.mark.parametrize("page", [
    b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>\n",
    b"\xef\xbb\xbf\r\n  <HTML lang=en><body>Sign in to continue</body></HTML>\r\n",
    b'<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>',
])
def test_a_web_page_saved_as_a_split_is_named_as_one(tmp_path: Path, page: bytes) -> None:
    folder = _write(tmp_path / "ds", _splits(**{"train.txt": page}))
    _refused_load(folder, tmp_path / "dd", "train.txt:1", "web page", "download")
    assert (folder / "train.txt").read_bytes() == page


def test_a_web_page_given_as_the_yahoo_archive_is_named_as_one(tmp_path: Path) -> None:
    page = tmp_path / "ltrc_yahoo.tar.bz2"
    page.write_bytes(b"<!doctype html><html><body>Webscope: please sign in</body></html>")
    res = cli(tmp_path, "datasets", "fetch", "yahoo-ltr", "--url", str(page), "--data-dir",
              str(tmp_path / "dd"), "--no-progress")
    assert refused(res, "ltrc_yahoo.tar.bz2", "web page") is None, res.err
    assert not (tmp_path / "dd" / "yahoo-ltr").exists()


@pytest.mark.parametrize(("pack", "tool"), [(gzip.compress, "gunzip"), (bz2.compress, "bunzip2"),
                                            (lzma.compress, "unxz")])
def test_compressed_bytes_under_a_plain_name_name_the_tool(tmp_path: Path, pack: object,
                                                           tool: str) -> None:
    body = pack(_lines(3, 201).encode())  # type: ignore[operator]
    folder = _write(tmp_path / "ds", _splits(**{"test.txt": body}))
    _refused_load(folder, tmp_path / "dd", "test.txt:1", tool)


def test_a_split_kept_only_as_train_txt_gz_says_unpack(tmp_path: Path) -> None:
    folder = _write(tmp_path / "ds", _splits(**{
        "train.txt": None, "train.txt.gz": gzip.compress(_lines(6, 1).encode())}))
    _refused_load(folder, tmp_path / "dd", "train.txt.gz", "unpack")


def test_a_zero_byte_test_file_is_named(tmp_path: Path) -> None:
    folder = _write(tmp_path / "ds", _splits(**{"test.txt": b""}))
    _refused_load(folder, tmp_path / "dd", "test.txt", "empty")


# ---------------------------------------------------------------------------- two formats, one split

def test_train_txt_beside_train_parquet_is_refused_naming_both(tmp_path: Path) -> None:
    import pandas as pd

    folder = _write(tmp_path / "ds", _splits())
    pd.DataFrame({"label": [1, 0], "qid": [1, 1], "f1": [0.1, 0.2]}).to_parquet(
        folder / "train.parquet")
    _refused_load(folder, tmp_path / "dd", "train.txt", "train.parquet")


def test_a_fold_vali_txt_beside_vali_parquet_is_refused_naming_both(tmp_path: Path) -> None:
    import pandas as pd

    folder = _write(tmp_path / "ds", {f"Fold1/{k}": v for k, v in _splits().items()})
    pd.DataFrame({"label": [1], "qid": [5], "f1": [0.1]}).to_parquet(
        folder / "Fold1" / "vali.parquet")
    _refused_load(folder, tmp_path / "dd", "vali.txt", "vali.parquet")


# ------------------------------------------------------------------------------ folds and leakage

def _fold(k: int, ids: tuple[int, ...] = (1, 2, 3, 4)) -> dict[str, str | bytes]:
    q = 1000 * k
    return {f"Fold{k}/train.txt": _lines(6, q, 0, ids), f"Fold{k}/vali.txt": _lines(2, q + 100, 1, ids),
            f"Fold{k}/test.txt": _lines(2, q + 200, 2, ids)}


def test_a_test_query_also_in_train_is_warned_then_refused_under_strict(tmp_path: Path) -> None:
    files = {**_fold(1), "Fold1/test.txt": _lines(2, 1001, 5)}  # 1001, 1002 are train queries
    folder = _write(tmp_path / "ds", files)
    res = cli(tmp_path, "run", "--dataset", str(folder), *QUICK, "--out", "o", "--strict")
    assert refused(res, "leak_queries", "1001", "test.txt", "train.txt") is None, res.err


def test_folds_all_with_a_fold_missing_its_test_file_names_it(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {}
    for k in range(1, 6):
        files.update(_fold(k))
    del files["Fold4/test.txt"]
    folder = _write(tmp_path / "ds", files)
    res = cli(tmp_path, "run", "--dataset", str(folder), *QUICK, "--out", "o", "--folds", "all")
    assert refused(res, "Fold4", "test.txt") is None, res.err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("metrics.csv"))


def test_a_symlinked_fold_folder_reads_the_files_it_points_to(tmp_path: Path) -> None:
    real = _write(tmp_path / "elsewhere", _fold(2))
    root = tmp_path / "lab"
    root.mkdir()
    _write(root, _fold(1))
    os.symlink(real / "Fold2", root / "Fold2")
    splits = _load(f"{root}:Fold2", tmp_path / "dd")
    _same_as_sklearn(splits.test, real / "Fold2" / "test.txt")  # type: ignore[attr-defined]
    assert splits.name == "lab:Fold2"  # type: ignore[attr-defined]


def test_parts_sharing_a_query_are_refused_naming_both_parts(tmp_path: Path) -> None:
    parts = {f"S{k}.txt": _lines(3, 100 * k, k) for k in range(1, 6)}
    parts["S4.txt"] = _lines(3, 200, 4)  # S2's queries again
    folder = _write(tmp_path / "ds", parts)
    _refused_load(f"{folder}:Fold2", tmp_path / "dd", "200", "S2.txt", "S4.txt")


def test_fold_from_parts_is_the_published_rotation(tmp_path: Path) -> None:
    parts = {f"S{k}.txt": _lines(2, 100 * k, k) for k in range(1, 6)}
    folder = _write(tmp_path / "ds", parts)
    splits = _load(f"{folder}:Fold3", tmp_path / "dd")
    # fold 3 trains on S3, S4, S5, validates on S1 and tests on S2 (LETOR's rotation)
    assert sorted(set(splits.train.qid.tolist())) == [300, 301, 400, 401, 500, 501]  # type: ignore[attr-defined]
    assert sorted(set(splits.vali.qid.tolist())) == [100, 101]  # type: ignore[attr-defined]
    _same_as_sklearn(splits.test, folder / "S2.txt")  # type: ignore[attr-defined]


# ----------------------------------------------------------------------- the catalogue's own copy

def test_a_stray_fold_folder_beside_ohsumeds_parts_is_not_read_unverified(
        tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed)
    stray = dd / OHSUMED / "Fold2"
    stray.mkdir()
    for split in ("train", "vali", "test"):  # Fold1's files copied as fold 2: a wrong fold
        shutil.copyfile(ohsumed / OHSUMED / "Fold1" / f"{split}.txt", stray / f"{split}.txt")
    _refused_load("ohsumed:Fold2", dd, "Fold2/train.txt", "not a file of the 'ohsumed' card")


def test_ohsumed_fold2_from_the_parts_still_loads(tmp_path: Path, ohsumed: Path) -> None:
    splits = _load("ohsumed:Fold2", _ohsumed_copy(tmp_path, ohsumed))
    # fold 2: train S2+S3+S4, vali S5, test S1 (the card: 21/21/21/21/22 queries)
    assert (splits.train.n_queries, splits.vali.n_queries, splits.test.n_queries) == (63, 22, 21)  # type: ignore[attr-defined]
    _same_as_sklearn(splits.test, ohsumed / OHSUMED / "S1.txt")  # type: ignore[attr-defined]


def test_an_edited_part_in_another_letter_case_is_checked_against_the_card(
        tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed, copied=("S3.txt",))
    part = dd / OHSUMED / "S3.txt"
    _flip_a_digit(part)
    part.rename(part.with_name("s3.txt"))  # as a case-insensitive disk's copy names it
    _refused_load("ohsumed:Fold2", dd, "s3.txt", "differs from the 'ohsumed' card")


def test_a_part_linked_to_an_edited_file_outside_is_checked_against_the_card(
        tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed)
    edited = tmp_path / "my-S3.txt"
    shutil.copyfile(ohsumed / OHSUMED / "S3.txt", edited)
    _flip_a_digit(edited)
    (dd / OHSUMED / "S3.txt").unlink()
    os.symlink(edited, dd / OHSUMED / "S3.txt")
    _refused_load("ohsumed:Fold3", dd, "S3.txt", "differs from the 'ohsumed' card")


def test_verify_names_the_edited_file_and_both_digests(tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed, copied=("S2.txt",))
    part = dd / OHSUMED / "S2.txt"
    before = _sha(part)
    _flip_a_digit(part)
    res = cli(tmp_path, "datasets", "verify", "ohsumed", "--data-dir", str(dd))
    assert res.status == 1, res.err
    line = next(ln for ln in res.out.splitlines() if "S2.txt" in ln)
    assert "mismatch" in line
    assert before in line
    assert _sha(part) in line
    assert "FAILED" in res.out
    assert "1 mismatch" in res.out


def test_verify_reads_a_part_in_another_letter_case_as_the_loaders_do(
        tmp_path: Path, ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed)
    (dd / OHSUMED / "S4.txt").rename(dd / OHSUMED / "s4.txt")
    res = cli(tmp_path, "datasets", "verify", "ohsumed", "--data-dir", str(dd))
    assert res.status == 0, res.out
    line = next(ln for ln in res.out.splitlines() if "S4.txt" in ln)
    assert line.split()[0] == "ok", line
    assert "s4.txt" in line, line


def test_verify_says_unpack_for_a_part_kept_only_compressed(tmp_path: Path,
                                                            ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed)
    (dd / OHSUMED / "S5.txt").unlink()
    (dd / OHSUMED / "S5.txt.gz").write_bytes(
        gzip.compress((ohsumed / OHSUMED / "S5.txt").read_bytes()))
    res = cli(tmp_path, "datasets", "verify", "ohsumed", "--data-dir", str(dd))
    assert res.status == 1
    line = next(ln for ln in res.out.splitlines() if ln.strip().endswith(")") and "S5" in ln)
    assert all(word in line for word in ("missing", "S5.txt.gz", "unpack")), line


def _only_counts_fail(out: str) -> bool:
    """Whether the one failing line of a verify report is the card's counts (10,000 queries
    stated, a 10-query stand-in there)."""
    lines = [ln.split()[0] for ln in out.splitlines()[1:-1] if ln.startswith("  ")]
    return "counts" in lines and not {"missing", "mismatch"} & set(lines)


def test_verify_of_a_fold_that_is_not_there_fails(tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {f"MSLR-WEB10K/{k}": v for k, v in _fold(1, (1, 136)).items()})
    res = cli(tmp_path, "datasets", "verify", "mslr-web10k:Fold2", "--data-dir", str(dd))
    assert res.status == 1, res.out
    assert "missing    Fold2/train.txt" in res.out
    assert "FAILED" in res.out
    ok = cli(tmp_path, "datasets", "verify", "mslr-web10k:fold1", "--data-dir", str(dd))
    # the fold's files are there; what fails is the stand-in's size (round 23: verify checks a
    # card's counts where no digest vouches for the files)
    assert ok.status == 1, ok.out
    assert "0 mismatch, 0 missing" in ok.out, ok.out
    assert _only_counts_fail(ok.out), ok.out


def test_verify_of_a_present_fold_hashes_that_folds_files(tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {f"MSLR-WEB10K/{k}": v
                                  for f in (_fold(1, (1, 136)), _fold(3, (1, 136)))
                                  for k, v in f.items()})
    res = cli(tmp_path, "datasets", "verify", "mslr-web10k:Fold3", "--data-dir", str(dd))
    assert res.status == 1, res.out  # a 10-query stand-in
    assert _only_counts_fail(res.out), res.out
    digest = _sha(dd / "MSLR-WEB10K" / "Fold3" / "test.txt")
    assert any("Fold3/test.txt" in ln and digest in ln for ln in res.out.splitlines()), res.out


@pytest.mark.parametrize(("name", "words"), [
    ("mslr_web10k", ("'mslr_web10k'", "did you mean 'mslr-web10k'")),
    ("ohsumd", ("'ohsumd'", "did you mean 'ohsumed'")),
    ("yahoo:set1", ("'yahoo'", "did you mean 'yahoo-ltr'")),
    ("mslr\u2011web30k", ("U+2011", "did you mean 'mslr-web30k'")),
    ("yahoo-ltr:set3", ("'set3'", "set1, set2")),
    ("mq2008:Fold6", ("'Fold6'", "Fold1, Fold2")),
])
def test_a_near_miss_catalogue_name_says_the_right_one(tmp_path: Path, name: str,
                                                       words: tuple[str, ...]) -> None:
    for command in ("info", "verify"):
        res = cli(tmp_path, "datasets", command, name)
        assert refused(res, *words) is None, (command, res.err)


def test_yahoo_set2_files_asked_for_as_set1_say_which_set_they_are(tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {f"yahoo-ltr/set2.{s}.txt": _lines(2, 10 * i + 1, i, (1, 700))
                                  for i, s in enumerate(("train", "valid", "test"))})
    _refused_load("yahoo-ltr", dd, "set1.train.txt", "set2")
    splits = _load("yahoo-ltr:set2", dd)
    _same_as_sklearn(splits.test, dd / "yahoo-ltr" / "set2.test.txt")  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- evaluate --data

def test_evaluate_sorted_split_query_scores_follow_their_rows(tmp_path: Path) -> None:
    (tmp_path / "test.txt").write_text(
        "2 qid:1 1:0.1 #docid = GX1 inc = 1 prob = 0.5\n0 qid:1 1:0.2\n1 qid:2 1:0.3\n"
        "0 qid:2 1:0.4\n1 qid:1 1:0.5\n", encoding="utf-8")
    (tmp_path / "scores.txt").write_bytes(b"0.1\r\n0.9\r\n0.8\r\n0.2\r\n0.5\r\n")
    res = cli(tmp_path, "evaluate", "--data", "test.txt", "--scores", "scores.txt",
              "--metrics", "ndcg@3", "--format", "csv", "--sort-by-qid")
    assert res.status == 0, res.err
    # q1: labels 2, 0, 1 scored 0.1, 0.9, 0.5 -> ranked 0, 1, 2; q2 ranked right: 1
    q1 = (1 / math.log2(3) + 3 / 2) / (3 + 1 / math.log2(3))
    got = float(res.out.splitlines()[1].split(",")[1])
    assert abs(got - (q1 + 1) / 2) < 1e-12


def test_evaluate_refuses_an_html_page_as_the_data_file(tmp_path: Path) -> None:
    (tmp_path / "test.txt").write_bytes(b"<!DOCTYPE HTML PUBLIC>\n<html></html>\n")
    (tmp_path / "scores.txt").write_text("0.5\n", encoding="utf-8")
    res = cli(tmp_path, "evaluate", "--data", "test.txt", "--scores", "scores.txt")
    assert refused(res, "test.txt", "web page") is None, res.err


# ----------------------------------------------------------------------- one run on a quirky copy

def test_run_on_a_bom_crlf_mq2007_copy_reads_every_row(tmp_path: Path) -> None:
    files = {name: b"\xef\xbb\xbf" + body.replace("\n", MQ2007_TAIL + "\r\n").encode()
             for name, body in _splits().items() if isinstance(body, str)}
    folder = _write(tmp_path / "MQ2007", {f"Fold1/{k}": v for k, v in files.items()})
    res = cli(tmp_path, "run", "--dataset", str(folder), *QUICK, "--out", "o", "--format", "json")
    assert res.status == 0, res.err
    summary = json.loads(res.out)
    manifest = json.loads((tmp_path / summary["run_dir"] / "manifest.json").read_text("utf-8"))
    for split in ("train", "vali", "test"):
        _, y, q = _sk(_write(tmp_path / "plain", _splits()) / f"{split}.txt", 4)
        got = manifest["dataset"]["summaries"][split]
        assert (got["rows"], got["queries"], got["features"]) == (len(y), len(set(q)), 4)


# ------------------------------------------------------------------- what the listing calls present

def test_list_calls_an_empty_copy_incomplete_not_present(tmp_path: Path) -> None:
    dd = tmp_path / "dd"
    (dd / "MSLR-WEB10K").mkdir(parents=True)  # an unpacking that never finished
    res = cli(tmp_path, "datasets", "list", "--data-dir", str(dd), "--format", "json")
    assert res.status == 0, res.err
    row = next(r for r in json.loads(res.out)["datasets"] if r["name"] == "mslr-web10k")
    assert row["present"] == str(dd / "MSLR-WEB10K")
    assert row["complete"] is False
    table = cli(tmp_path, "datasets", "list", "--data-dir", str(dd))
    line = next(ln for ln in table.out.splitlines() if "mslr-web10k" in ln)
    assert "incomplete" in line, line


def test_info_of_set1_in_a_folder_of_set2_files_says_it_holds_none_of_them(
        tmp_path: Path) -> None:
    dd = _write(tmp_path / "dd", {f"yahoo-ltr/set2.{s}.txt": _lines(2, 10 * i + 1, i, (1, 700))
                                  for i, s in enumerate(("train", "valid", "test"))})
    res = cli(tmp_path, "datasets", "info", "yahoo-ltr", "--data-dir", str(dd))
    last = res.out.strip().splitlines()[-1]
    assert "incomplete" in last, last
    assert "set1.train.txt" in last, last
    res2 = cli(tmp_path, "datasets", "info", "yahoo-ltr:set2", "--data-dir", str(dd))
    assert "incomplete" not in res2.out


def test_verify_fails_on_a_stray_fold_that_a_load_would_refuse(tmp_path: Path,
                                                               ohsumed: Path) -> None:
    dd = _ohsumed_copy(tmp_path, ohsumed)
    (dd / OHSUMED / "fold3").mkdir()  # lower case, as the loaders find it
    for split in ("train", "test"):
        shutil.copyfile(ohsumed / OHSUMED / "S1.txt", dd / OHSUMED / "fold3" / f"{split}.txt")
    res = cli(tmp_path, "datasets", "verify", "ohsumed", "--data-dir", str(dd), "--format", "json")
    assert res.status == 1, res.out
    report = json.loads(res.out)
    assert report["counts"]["foreign"] == 2
    assert {f["path"] for f in report["files"] if f["status"] == "foreign"} == {
        "fold3/train.txt", "fold3/test.txt"}
    _refused_load("ohsumed:Fold3", dd, "fold3/train.txt", "not a file of the 'ohsumed' card")


def test_fetch_of_yahoos_outer_archive_names_the_inner_one(tmp_path: Path) -> None:
    import io
    import tarfile

    def tar(members: dict[str, bytes], mode: str) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode=mode) as tf:  # type: ignore[call-overload]
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    inner = tar({f"set1.{s}.txt": _lines(2, 1, 0).encode() for s in ("train", "valid", "test")},
                "w:bz2")
    outer = tmp_path / "dataset.tgz"  # Webscope C14 as it is delivered
    outer.write_bytes(tar({"Webscope_C14/ltrc_yahoo.tar.bz2": inner,
                           "Webscope_C14/readme.txt": b"C14\n"}, "w:gz"))
    res = cli(tmp_path, "datasets", "fetch", "yahoo-ltr", "--url", str(outer), "--data-dir",
              str(tmp_path / "dd"), "--no-progress")
    assert refused(res, "dataset.tgz", "set1.train.txt (missing)", "ltrc_yahoo.tar.bz2",
                   "--url") is None, res.err
    assert not (tmp_path / "dd" / "yahoo-ltr").exists()
