"""Round 13b, hostile (issue 19): a PhD student reproducing a LambdaMART table on classic LETOR
folds (parts ``S1..S5`` and ``Fold1..Fold5`` in the forms found in the wild), then attacking the
same surfaces: bad folds, outputs over inputs, damaged fold tables given to ``reproduce``.

Oracles: scikit-learn's ``load_svmlight_files`` on the same bytes, hand arithmetic, "exit 2 and
the message names the file and what was expected", input bytes unchanged. One five-fold run
(random model, one seed) is shared by every case that needs fold tables.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import os
import shutil
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.hostile_kit import cli, letor_split, refused, snapshot, untouched

QUICK = ("--models", "random", "--quick", "--seeds", "0", "--no-progress")
DOC = "folds/root-folds12345.json"


def _parts(root: Path, *, n: int = 3) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(1, 6):
        (root / f"S{i}.txt").write_bytes(letor_split(n, 100 * i, i))
    return root


def _folds(root: Path) -> Path:
    for k in range(1, 6):
        f = root / f"Fold{k}"
        f.mkdir(parents=True)
        (f / "train.txt").write_bytes(letor_split(4, 1000 * k, k))
        (f / "vali.txt").write_bytes(letor_split(2, 1000 * k + 100, k + 10))
        (f / "test.txt").write_bytes(letor_split(2, 1000 * k + 200, k + 20))
    return root


def _blank(data: bytes) -> bytes:
    """Every label of ``data`` set to 0 (a split with no relevant document)."""
    return b"".join(b"0" + line[1:] + b"\n" for line in data.splitlines())


def _read(root: Path, fold: int, cache: Path) -> Any:
    from bench.datasets.folds import read_fold

    return read_fold(root, fold, cache_dir=cache)


def _sk(files: list[bytes]) -> list[Any]:
    from sklearn.datasets import load_svmlight_files

    return load_svmlight_files([io.BytesIO(b) for b in files], query_id=True, dtype=np.float64)


# ------------------------------------------------------------------- one shared five-fold run
@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of ``run --folds all`` on parts whose S5 (Fold1's test) has no relevant
    document."""
    base = tmp_path_factory.mktemp("folds13b")
    root = _parts(base / "root")
    (root / "S5.txt").write_bytes(_blank((root / "S5.txt").read_bytes()))
    res = cli(base, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", "out")
    assert res.status == 0, res.err
    return base


def _copy(done: Path, tmp_path: Path) -> Path:
    shutil.copytree(done / "out", tmp_path / "out")
    return tmp_path / "out"


def _damaged(done: Path, tmp_path: Path, change: Any) -> Path:
    out = _copy(done, tmp_path)
    doc = json.loads((out / DOC).read_text())
    text = change(doc)
    (out / DOC).write_text(text if isinstance(text, str) else json.dumps(doc))
    return out


# ---------------------------------------------------------------- the student's own reading
def test_fold4_trains_on_s4_s5_s1_as_sklearn_reads_the_ohsumed_parts(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2] / "shared/data/letor3-OHSUMED-QueryLevelNorm"
    if not (root / "S1.txt").is_file():
        pytest.skip("the shared OHSUMED copy is not here")
    from bench.datasets.folds import read_fold

    got = read_fold(root, 4)  # the parse cache other tests warm
    parts = [(root / f"S{i}.txt").read_bytes() for i in (4, 5, 1, 2, 3)]
    sk = _sk(parts)
    width = got.train.X.shape[1]
    want_x = np.vstack([sk[0].toarray(), sk[3].toarray(), sk[6].toarray()])[:, :width]
    assert np.array_equal(got.train.X, want_x.astype(got.train.X.dtype))
    assert np.array_equal(got.train.y, np.concatenate([sk[1], sk[4], sk[7]]))
    assert np.array_equal(got.vali.y, sk[10])
    assert np.array_equal(got.test.y, sk[13])


def test_crlf_parts_with_a_trailing_empty_line_read_as_their_lf_bytes(tmp_path: Path) -> None:
    lf, crlf = _parts(tmp_path / "lf"), _parts(tmp_path / "crlf")
    for i in range(1, 6):
        body = (crlf / f"S{i}.txt").read_bytes().replace(b"\n", b"\r\n") + b"\r\n"
        (crlf / f"S{i}.txt").write_bytes(body)
    a, b = _read(lf, 2, tmp_path / "c1"), _read(crlf, 2, tmp_path / "c2")
    for split in ("train", "vali", "test"):
        assert np.array_equal(getattr(a, split).X, getattr(b, split).X)
        assert np.array_equal(getattr(a, split).qid, getattr(b, split).qid)


def test_a_bom_before_s1_is_not_part_of_the_first_label(tmp_path: Path) -> None:
    root = _parts(tmp_path / "r")
    plain = (root / "S1.txt").read_bytes()
    (root / "S1.txt").write_bytes(b"\xef\xbb\xbf" + plain)
    got = _read(root, 1, tmp_path / "c")
    sk = _sk([plain])
    assert np.array_equal(got.train.y[: len(sk[1])], sk[1])
    assert np.array_equal(got.train.qid[: len(sk[2])], sk[2])


def test_docid_inc_prob_comments_in_parts_are_comments_as_sklearn_reads_them(
        tmp_path: Path) -> None:
    root = _parts(tmp_path / "r")
    for i in range(1, 6):
        lines = (root / f"S{i}.txt").read_bytes().splitlines()
        (root / f"S{i}.txt").write_bytes(b"".join(
            line + b" #docid = GX%03d-%02d-0000000 inc = 1 prob = 0.0246\n" % (i, j)
            for j, line in enumerate(lines)))
    got = _read(root, 3, tmp_path / "c")
    sk = _sk([(root / f"S{i}.txt").read_bytes() for i in (3, 4, 5, 1, 2)])
    assert np.array_equal(got.test.y, sk[13])
    assert np.array_equal(got.test.X, sk[12].toarray().astype(got.test.X.dtype))


def test_index_gaps_and_one_part_with_a_higher_index_widen_every_split_as_sklearn(
        tmp_path: Path) -> None:
    root = _parts(tmp_path / "r")
    s5 = (root / "S5.txt").read_bytes().replace(b" 4:", b" 9:")  # gaps 5..8, Fold1's test
    (root / "S5.txt").write_bytes(s5)
    got = _read(root, 1, tmp_path / "c")
    sk = _sk([(root / f"S{i}.txt").read_bytes() for i in range(1, 6)])
    assert got.train.X.shape[1] == got.test.X.shape[1] == sk[0].shape[1] == 9
    assert np.array_equal(got.test.X, sk[12].toarray().astype(got.test.X.dtype))


def test_unsorted_contiguous_qids_in_a_part_keep_the_groups_sklearn_gives(
        tmp_path: Path) -> None:
    root = _parts(tmp_path / "r")
    lines = (root / "S2.txt").read_bytes().splitlines(keepends=True)
    (root / "S2.txt").write_bytes(b"".join(lines[16:] + lines[:16]))  # qid 202, 200, 201
    got = _read(root, 5, tmp_path / "c")  # Fold5 tests on S4, trains on S5 S1 S2
    qid = got.train.qid
    sk = _sk([(root / f"S{i}.txt").read_bytes() for i in (5, 1, 2)])
    assert sorted(map(int, set(qid))) == sorted(map(int, set(np.concatenate(
        [sk[2], sk[5], sk[8]]))))
    assert len(got.train.offsets) - 1 == 9  # nine queries, none split


@pytest.mark.parametrize("spelling", [b"qid: ", b"qid :", b"QID:"])
def test_a_qid_spelled_apart_is_refused_at_its_part_file_and_line(
        tmp_path: Path, spelling: bytes) -> None:
    from sklearn.datasets import load_svmlight_file

    root = _parts(tmp_path / "root")
    lines = (root / "S2.txt").read_bytes().splitlines(keepends=True)
    lines[4] = lines[4].replace(b"qid:", spelling)
    bad = b"".join(lines)
    (root / "S2.txt").write_bytes(bad)
    if spelling != b"QID:":
        with pytest.raises(ValueError, match=r"."):  # the oracle refuses it too
            load_svmlight_file(io.BytesIO(bad), query_id=True)
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", "o")
    assert refused(res, "S2.txt", ":5") is None, res.err
    assert not (tmp_path / "o" / "runs").exists()


# ------------------------------------------------------------------------- the folds chosen
def test_a_fold_without_vali_among_folds_with_one_is_refused_before_training(
        tmp_path: Path) -> None:
    root = _folds(tmp_path / "root")
    (root / "Fold3" / "vali.txt").unlink()
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", "o")
    assert refused(res, "Fold3", "vali.txt", "Fold1") is None, res.err
    assert not (tmp_path / "o" / "runs").exists()


def test_folds_that_all_lack_vali_are_one_protocol_and_accepted(tmp_path: Path) -> None:
    from bench.benchmark.folds import fold_datasets

    root = _folds(tmp_path / "root")
    for k in range(1, 6):
        (root / f"Fold{k}" / "vali.txt").unlink()
    assert len(fold_datasets(str(root), (1, 2, 3, 4, 5))) == 5


def test_the_folds_picked_are_the_ones_compared_for_vali(tmp_path: Path) -> None:
    from bench.benchmark.folds import fold_datasets

    root = _folds(tmp_path / "root")
    (root / "Fold3" / "vali.txt").unlink()
    assert len(fold_datasets(str(root), (1, 2))) == 2  # Fold3 not picked: nothing mixed


def test_a_tar_gz_of_the_root_given_to_folds_is_named_an_archive(tmp_path: Path) -> None:
    root = _parts(tmp_path / "root")
    with tarfile.open(tmp_path / "root.tar.gz", "w:gz") as tf:
        tf.add(root, arcname="root")
    res = cli(tmp_path, "run", "--dataset", "root.tar.gz", "--folds", "all", *QUICK)
    assert refused(res, "root.tar.gz", "gzip", "decompress") is None, res.err


def test_a_zip_of_the_root_given_to_folds_is_named_an_archive(tmp_path: Path) -> None:
    root = _parts(tmp_path / "root")
    with zipfile.ZipFile(tmp_path / "MQ2008.zip", "w") as zf:
        for i in range(1, 6):
            zf.write(root / f"S{i}.txt", f"MQ2008/S{i}.txt")
    res = cli(tmp_path, "run", "--dataset", "MQ2008.zip", "--folds", "1,3", *QUICK)
    assert refused(res, "MQ2008.zip", "zip", "unzip") is None, res.err


def test_a_gz_part_file_beside_four_plain_ones_is_named(tmp_path: Path) -> None:
    root = _parts(tmp_path / "root")
    data = (root / "S4.txt").read_bytes()
    (root / "S4.txt").unlink()
    (root / "S4.txt.gz").write_bytes(gzip.compress(data))
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK)
    assert refused(res, "S4.txt") is None, res.err


def test_a_part_file_that_is_only_comments_is_named(tmp_path: Path) -> None:
    root = _parts(tmp_path / "root")
    (root / "S3.txt").write_bytes(b"# S3 lost in the download\n\n")
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", "o")
    assert refused(res, "S3.txt") is None, res.err


# -------------------------------------------------------------------- outputs over inputs
@pytest.mark.parametrize("out", ["root/Fold2", "root/Fold2/results", "root"])
def test_out_inside_a_fold_folder_is_refused_and_the_fold_kept(tmp_path: Path, out: str) -> None:
    root = _folds(tmp_path / "root")
    before = snapshot(root)
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", out)
    assert refused(res, "--out") is None, res.err
    assert untouched(before, root) is None
    assert snapshot(root).keys() == before.keys()


def test_a_root_named_folds_under_out_is_not_written_into(tmp_path: Path) -> None:
    root = _parts(tmp_path / "res" / "folds")
    before = snapshot(root)
    res = cli(tmp_path, "run", "--dataset", "res/folds", "--folds", "all", *QUICK, "--out", "res")
    assert refused(res, "--out", "res/folds") is None, res.err
    assert snapshot(root) == before


def test_a_fold_table_path_linked_to_a_part_file_is_refused_and_the_part_kept(
        tmp_path: Path) -> None:
    root = _parts(tmp_path / "root")
    before = snapshot(root)
    (tmp_path / "o" / "folds").mkdir(parents=True)
    os.symlink(root / "S1.txt", tmp_path / "o" / "folds" / "root-folds12345.md")
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "all", *QUICK, "--out", "o")
    assert refused(res, "root-folds12345.md") is None, res.err
    assert snapshot(root) == before
    assert not (tmp_path / "o" / "runs").exists()


def test_reproduce_out_inside_an_original_fold_run_is_refused(done: Path, tmp_path: Path) -> None:
    out = _copy(done, tmp_path)
    run1 = sorted((out / "runs").iterdir())[0]
    before = snapshot(out)
    res = cli(tmp_path, "reproduce", str(out / DOC), "--out", str(run1 / "again"),
              "--no-progress")
    assert refused(res, "--out") is None, res.err
    assert snapshot(out) == before


def test_reproduce_out_into_the_runs_folder_of_the_fold_runs_is_refused(
        done: Path, tmp_path: Path) -> None:
    out = _copy(done, tmp_path)
    before = snapshot(out)
    res = cli(tmp_path, "reproduce", str(out / DOC), "--out", str(out), "--no-progress")
    assert refused(res, "--out") is None, res.err
    assert snapshot(out) == before


# -------------------------------------------------------------- a fold with no relevant doc
def test_a_fold_without_relevant_documents_is_said_in_the_fold_mean(done: Path) -> None:
    doc = json.loads((done / "out" / DOC).read_text())
    table = next(t for t in doc["tables"] if t["metric"] == "ndcg@10")
    row = table["rows"][0]
    assert row["per_fold"][0] is None  # Fold1 tests on S5: no relevant document
    finite = [v for v in row["per_fold"] if v is not None]
    assert row["mean"] == pytest.approx(sum(finite) / 4, abs=1e-12)
    md = (done / "out" / "folds" / "root-folds12345.md").read_text()
    line = next(ln for ln in md.split("**root**: ndcg@10")[1].splitlines()
                if ln.startswith("| random"))
    assert "4 of 5 folds" in line, line


def test_the_fold_table_with_a_blank_fold_still_reproduces(done: Path, tmp_path: Path) -> None:
    out = _copy(done, tmp_path)
    res = cli(tmp_path, "reproduce", str(out / "folds" / "root-folds12345.md"), "--no-progress")
    assert not res.traceback, res.err
    assert res.status == 0, res.out + res.err


# --------------------------------------------------------------- damaged fold tables
def _drop(key: str) -> Any:
    def change(doc: dict[str, Any]) -> None:
        del doc["tables"][0]["rows"][0][key]
    return change


def _set(key: str, value: Any) -> Any:
    def change(doc: dict[str, Any]) -> None:
        doc["tables"][0]["rows"][0][key] = value
    return change


def _tset(key: str, value: Any) -> Any:
    def change(doc: dict[str, Any]) -> None:
        doc["tables"][0][key] = value
    return change


def _ddrop(key: str) -> Any:
    def change(doc: dict[str, Any]) -> None:
        del doc[key]
    return change


DAMAGE = [
    ("ci-empty", _set("ci", []), "ci"),
    ("ci-one-number", _set("ci", [0.5]), "ci"),
    ("row-without-model", _drop("model"), "model"),
    ("row-model-a-number", _set("model", 7), "model"),
    ("row-without-p", _drop("p_holm_vs_best"), "p_holm_vs_best"),
    ("row-without-mean", _drop("mean"), "mean"),
    ("per-fold-shorter-than-folds", _set("per_fold", [0.5, 0.5, 0.5]), "per_fold"),
    ("per-fold-longer-than-folds", _set("per_fold", [0.5] * 6), "per_fold"),
    ("mean-beyond-a-float", _set("mean", 10 ** 400), "mean"),
    ("n-queries-text", _tset("n_queries", "many"), "n_queries"),
    ("n-queries-fraction", _tset("n_queries", 14.5), "n_queries"),
    ("n-queries-negative", _tset("n_queries", -3), "n_queries"),
    ("metric-missing", lambda d: d["tables"][0].pop("metric") and None, "metric"),
    ("profile-a-list", _tset("profile", ["ltrbench"]), "profile"),
    ("table-folds-empty", _tset("folds", []), "folds"),
    ("table-folds-numbers", _tset("folds", [1, 2, 3, 4, 5]), "folds"),
    ("dataset-missing", _ddrop("dataset"), "dataset"),
    ("dataset-a-number", lambda d: d.update(dataset=5), "dataset"),
    ("runs-fewer-than-folds", lambda d: d.update(runs=d["runs"][:4]), "runs"),
]


@pytest.mark.parametrize(("change", "key"), [(c, k) for _, c, k in DAMAGE],
                         ids=[n for n, _, _ in DAMAGE])
def test_a_damaged_fold_table_is_refused_before_any_fold_runs_again(
        done: Path, tmp_path: Path, change: Any, key: str) -> None:
    out = _damaged(done, tmp_path, change)
    res = cli(tmp_path, "reproduce", str(out / DOC), "--no-progress")
    assert refused(res, "root-folds12345.json", key) is None, res.err
    assert "re-running" not in res.err


def test_a_nan_literal_in_a_fold_table_is_no_json_ltrbench_wrote(
        done: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> str:
        doc["tables"][0]["rows"][0]["std"] = float("nan")
        return json.dumps(doc)  # Python writes NaN; run --folds writes null
    out = _damaged(done, tmp_path, change)
    res = cli(tmp_path, "reproduce", str(out / DOC), "--no-progress")
    assert refused(res, "root-folds12345.json", "std") is None, res.err


def test_the_html_report_reader_refuses_a_fold_table_with_a_short_row(
        done: Path, tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.report.folds import read_fold_docs

    out = _damaged(done, tmp_path, _set("per_fold", [0.5, 0.5]))
    with pytest.raises(DataError, match="per_fold"):
        read_fold_docs(out / "folds")


def test_the_html_fold_section_of_a_huge_number_is_a_clear_error(
        done: Path, tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.report.folds import read_fold_docs

    out = _damaged(done, tmp_path, _set("pooled_mean", 10 ** 400))
    with pytest.raises(DataError, match="pooled_mean"):
        read_fold_docs(out / "folds")


def test_an_untouched_fold_table_passes_the_document_check(done: Path) -> None:
    from bench.report.folds import read_fold_doc

    doc = read_fold_doc(done / "out" / DOC)
    assert doc == json.loads((done / "out" / DOC).read_text())
    assert copy.deepcopy(doc)["folds"] == ["Fold1", "Fold2", "Fold3", "Fold4", "Fold5"]


def test_a_fold_tables_md_without_its_json_names_run_folds_not_report(
        done: Path, tmp_path: Path) -> None:
    out = _copy(done, tmp_path)
    (out / DOC).unlink()
    res = cli(tmp_path, "reproduce", str(out / "folds" / "root-folds12345.md"), "--no-progress")
    assert refused(res, "root-folds12345.json", "run --folds") is None, res.err


def _twice(doc: dict[str, Any]) -> str:
    """The row's mean written twice (JSON keeps the last in silence)."""
    text = json.dumps(doc)
    return text.replace('"mean": ', '"mean": 0.9999, "mean": ', 1)


def test_a_key_written_twice_in_a_fold_table_is_refused_by_the_report_reader(
        done: Path, tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.report.folds import read_fold_docs

    out = _damaged(done, tmp_path, _twice)
    with pytest.raises(DataError, match="'mean' appears twice"):
        read_fold_docs(out / "folds")


def test_a_key_written_twice_in_a_fold_table_is_refused_by_reproduce(
        done: Path, tmp_path: Path) -> None:
    out = _damaged(done, tmp_path, _twice)
    res = cli(tmp_path, "reproduce", str(out / DOC), "--no-progress")
    assert refused(res, "root-folds12345.json", "'mean'", "twice") is None, res.err
    assert "re-running" not in res.err


def test_folds_of_different_feature_counts_are_said_with_each_folds_count(
        tmp_path: Path) -> None:
    root = _folds(tmp_path / "root")
    for split in ("train", "vali", "test"):  # Fold2 of another dataset: 40 features, not 4
        f = root / "Fold2" / f"{split}.txt"
        f.write_bytes(f.read_bytes().replace(b" 4:", b" 40:"))
    res = cli(tmp_path, "run", "--dataset", "root", "--folds", "1,2", *QUICK, "--out", "o")
    assert res.status == 0, res.err
    assert "[fold_features]" in res.err, res.err
    assert "Fold1: 4, Fold2: 40" in res.err, res.err


def test_the_pooled_count_is_the_queries_with_a_value_not_every_test_query(done: Path) -> None:
    """The header said "pooled (N queries)" with N counting S5's queries, which have no relevant
    document and no value: the pooled mean and interval are over the others (counted here with
    scikit-learn's reader of the same part files)."""
    parts = [(done / "root" / f"S{i}.txt").read_bytes() for i in range(1, 6)]
    loaded = _sk(parts)
    with_relevant = 0
    for k in range(5):
        y, qid = loaded[3 * k + 1], loaded[3 * k + 2]
        with_relevant += len({q for q, label in zip(qid, y, strict=True) if label > 0})
    doc = json.loads((done / "out" / DOC).read_text())
    table = next(t for t in doc["tables"] if t["metric"] == "ndcg@10")
    assert table["n_queries"] == with_relevant
    md = (done / "out" / "folds" / "root-folds12345.md").read_text()
    assert f"pooled ({with_relevant} queries)" in md.split("**root**: ndcg@10")[1]
