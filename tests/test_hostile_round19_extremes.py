"""Round 19 (issue 19): a researcher's own crawled LETOR collection, half-cleaned, at the extremes.

They feed ltrbench degenerate and extreme data through the file readers (SVMlight text, Parquet,
``.gz``), ``LetorData``, ``run`` on tiny folders and ``evaluate``: odd ``qid:`` spellings, a
label-only line, NUL bytes, an index at the 10^7 limit, a 20,000-document query, 10,000 queries
of one document, all-zero labels, all-tied scores, constant and all-NaN features, a feature
that only the test (or validation) file has, a validation split with nothing relevant, a model
that separates nothing, and LightGBM's 10,000-rows-per-query limit. Each test names its class
of issue 19 in its docstring's first words. Oracles: scikit-learn's ``load_svmlight_file``
(the parser's documented oracle; where it differs, the test says which rule ltrbench
documents), ``sklearn.metrics.ndcg_score``, pytrec_eval, LightGBM's own
``DCGCalculator::kMaxPosition`` (10000, ``src/metric/dcg_calculator.cpp``) and hand arithmetic.
Earlier catalogues (round 7 fuzz, 8b, 9 and 12 LETOR, 13b folds, 18 curator) hold the cases not
repeated here: index 0, repeated and backwards indices, huge indices, ``-0``/``1e0`` labels,
leading zeros, ``#docid`` comments, leaks between splits, split queries in files.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, letor_split, own_error, refused

sklearn_datasets = pytest.importorskip("sklearn.datasets")


# ------------------------------------------------------------------------------------ helpers

def _file(tmp: Path, body: bytes, name: str = "d.txt") -> Path:
    p = tmp / name
    p.write_bytes(body)
    return p


def _read(p: Path):  # type: ignore[no-untyped-def]
    from bench.data.svmlight import read_svmlight

    return read_svmlight(p)


def _sk(p: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y, q = sklearn_datasets.load_svmlight_file(str(p), query_id=True, dtype=np.float32)
    return X.toarray(), y, q


def _same_as_sklearn(p: Path) -> None:
    got = _read(p)
    X, y, q = _sk(p)
    assert got.X.shape == X.shape
    np.testing.assert_array_equal(got.X, X)
    np.testing.assert_array_equal(got.y, y)
    np.testing.assert_array_equal(got.qid, q)


def _one_doc(body: bytes, first: int) -> bytes:
    """Every row of a LETOR split as a query of its own."""
    out = []
    for i, line in enumerate(body.decode().splitlines()):
        f = line.split()
        out.append(f"{f[0]} qid:{first + i} {' '.join(f[2:])}")
    return ("\n".join(out) + "\n").encode()


def _with(body: bytes, extra: str) -> bytes:
    return b"".join(line + extra.encode() + b"\n" for line in body.splitlines())


def _zero_labels(body: bytes) -> bytes:
    return b"".join(b"0" + line[1:] + b"\n" for line in body.splitlines())


def _constant(body: bytes) -> bytes:
    return "".join(f"{ln.split()[0]} {ln.split()[1]} 1:1 2:0.5 3:0.5 4:2\n"
                   for ln in body.decode().splitlines()).encode()


def _splits(tmp: Path, train: bytes | None = None, vali: bytes | None = None,
            test: bytes | None = None):  # type: ignore[no-untyped-def]
    """train/vali/test text files read as one fold (one shared width, as a folder is read)."""
    from bench.data.letor import LetorSplits
    from bench.data.svmlight import read_svmlight_files

    bodies = {"train": train or letor_split(20, 1, 0), "vali": vali or letor_split(6, 101, 1),
              "test": test or letor_split(6, 201, 2)}
    paths = [_file(tmp, b, f"{s}.txt") for s, b in bodies.items()]
    tr, va, te = read_svmlight_files(paths)
    return LetorSplits(name="crawl", train=tr, vali=va, test=te)


def _findings(splits) -> list:  # type: ignore[no-untyped-def]
    from bench.data.split_checks import check_splits

    return check_splits(splits)


def _warned(splits, *words: str) -> str | None:  # type: ignore[no-untyped-def]
    """None when a split check *warns* (printed by a run, refused by --strict) with every word."""
    found = _findings(splits)
    hits = [f for f in found if f.level == "warning" and all(w in f.message for w in words)]
    if hits:
        return None
    return f"no warning naming {words}; findings: {[(f.code, f.level, f.message) for f in found]}"


def _evaluate(*args, **kw):  # type: ignore[no-untyped-def]
    from bench.metrics import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*args, **kw)


def _run(splits, **kw):  # type: ignore[no-untyped-def]
    from bench.benchmark import run

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, exc = call(lambda: run("crawl", splits=splits, quick=True, **{
            "models": ["lightgbm"], "seeds": [0], "crosscheck": False, **kw}))
    return value, exc, [str(w.message) for w in caught]


# ------------------------------------------------------------------- SVMlight lines, one by one

def test_silent_accept_a_hashed_feature_index_is_read_at_sklearns_width_and_said(
        tmp_path: Path) -> None:
    """silent accept: a crawler's hashed feature id (index 100,000 beside index 2) makes a dense
    matrix of 100,000 columns, two of them used: read as sklearn's width (the documented limit
    is 10,000,000), and said, since every row now costs 400 KB for two values."""
    from bench.data.svmlight import read_svmlight

    p = _file(tmp_path, b"1 qid:1 2:0.5 100000:1.5\n0 qid:1 2:3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = read_svmlight(p)
    X, _, q = sklearn_datasets.load_svmlight_file(str(p), query_id=True, dtype=np.float32)
    assert got.X.shape == X.shape == (2, 100_000)
    assert np.flatnonzero(got.X[0]).tolist() == X[0].indices.tolist() == [1, 99_999]
    np.testing.assert_array_equal(got.qid, q)
    said = [str(w.message) for w in caught]
    assert any("d.txt" in m and "100,000" in m and "2 of them" in m for m in said), said


def test_silently_wrong_qid_minus_one_is_query_minus_one_as_sklearn_reads_it(tmp_path: Path) -> None:
    """silently wrong number: ``qid:-1`` (a crawler's 'unknown query') is query -1, one group."""
    p = _file(tmp_path, b"1 qid:-1 1:1\n0 qid:-1 1:3\n2 qid:-2 1:2\n")
    _same_as_sklearn(p)
    assert _read(p).n_queries == 2


@pytest.mark.parametrize("qid", ["1.5", "1e0", "0x1", "", "one"])
def test_unclear_error_a_query_id_that_is_no_integer_is_named_at_its_line_and_column(
        tmp_path: Path, qid: str) -> None:
    """unclear error: ``qid:1.5`` (sklearn: ValueError from int()) is refused naming the line,
    the column and that an integer was expected."""
    p = _file(tmp_path, f"1 qid:7 1:1\n0 qid:{qid} 1:3\n".encode())
    why = own_error(lambda: _read(p), "d.txt:2", "column 3", "integer")
    assert why is None, why


@pytest.mark.parametrize("line", [b"0 1:3", b"2", b"0 # qid:1 in a comment only"])
def test_silent_accept_a_line_without_qid_in_a_qid_file_is_refused_where_sklearn_misaligns(
        tmp_path: Path, line: bytes) -> None:
    """silent accept: sklearn returns fewer query ids than rows for a file where one line lacks
    ``qid:`` (the ids then shift onto the wrong rows); ltrbench names the line."""
    p = _file(tmp_path, b"1 qid:1 1:1\n" + line + b"\n1 qid:1 1:2\n")
    X, _, q = _sk(p)
    assert q.shape[0] != X.shape[0]  # the oracle's own misalignment
    why = own_error(lambda: _read(p), "d.txt:2", "qid:")
    assert why is None, why


def test_silent_accept_qid_appearing_only_from_the_second_line_is_refused_there(tmp_path: Path) -> None:
    """silent accept: the first line without ``qid:``, the next with it: one rule per file."""
    p = _file(tmp_path, b"1 1:1\n0 qid:1 1:3\n")
    why = own_error(lambda: _read(p), "d.txt:2", "qid:")
    assert why is None, why


@pytest.mark.parametrize("label", [b"1.", b"+1", b"1.000", b"001"])
def test_silently_wrong_label_spellings_read_as_sklearn(tmp_path: Path, label: bytes) -> None:
    """silently wrong number: ``1.``, ``+1``, ``1.000`` and ``001`` are label 1, as sklearn reads them."""
    p = _file(tmp_path, label + b" qid:1 1:1\n0 qid:1 1:3\n")
    _same_as_sklearn(p)
    assert _read(p).y.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("label", [b"0x1", b"1_0", b"nan", b"inf", b"1,5"])
def test_unclear_error_a_label_that_is_no_plain_decimal_is_named_at_column_1(
        tmp_path: Path, label: bytes) -> None:
    """unclear error: hex, underscores, nan/inf and a decimal comma are refused at column 1
    (the parser's documented rule; sklearn's float() reads 'nan', 'inf' and '1_0')."""
    p = _file(tmp_path, b"1 qid:1 1:1\n" + label + b" qid:1 1:3\n")
    why = own_error(lambda: _read(p), "d.txt:2", "column 1", "label")
    assert why is None, why


def test_silently_wrong_a_label_and_qid_only_line_is_a_row_of_zeros_as_sklearn(tmp_path: Path) -> None:
    """silently wrong number: a document without any feature is a row of zeros, not dropped."""
    p = _file(tmp_path, b"1 qid:1\n0 qid:1 2:3\n2 qid:1 \n")
    _same_as_sklearn(p)
    assert _read(p).n_rows == 3


def test_silently_wrong_tabs_and_runs_of_blanks_between_tokens_read_as_sklearn(tmp_path: Path) -> None:
    """silently wrong number: a tab-separated export and double spaces read as single blanks."""
    p = _file(tmp_path, b"1\tqid:1\t1:1\t2:3\n0  qid:1 \t 1:3   2:0.5\t\n")
    _same_as_sklearn(p)


def test_unclear_error_a_trailing_nul_after_the_last_line_is_named_with_its_line(tmp_path: Path) -> None:
    """unclear error: a crawl dump padded with a NUL byte at its end: the line and 'NUL'."""
    p = _file(tmp_path, b"1 qid:1 1:1\n0 qid:1 1:3\n\x00")
    why = own_error(lambda: _read(p), "d.txt:3", "NUL")
    assert why is None, why


def test_unclear_error_a_nul_glued_to_a_value_is_named_with_its_column(tmp_path: Path) -> None:
    """unclear error: ``1:1\\x00`` (a C string written whole) names the NUL and its column."""
    p = _file(tmp_path, b"1 qid:1 1:1\x00 2:1\n0 qid:1 1:3\n")
    why = own_error(lambda: _read(p), "d.txt:1", "NUL", "column 12")
    assert why is None, why


def test_unclear_error_a_negative_feature_index_is_named_at_its_column(tmp_path: Path) -> None:
    """unclear error: ``-3:1`` (sklearn: 'Invalid index -3') names the column and indices >= 1."""
    p = _file(tmp_path, b"1 qid:1 -3:1\n0 qid:1 1:3\n")
    why = own_error(lambda: _read(p), "d.txt:1", "column 9", ">= 1")
    assert why is None, why


@pytest.mark.parametrize("spelling", ["QID", "Qid", "qId"])
def test_unclear_error_qid_in_another_letter_case_is_named_as_qid(tmp_path: Path, spelling: str) -> None:
    """unclear error: ``QID:1`` was read as a feature token and refused as 'the feature index
    must be a plain integer', which does not say that ``qid:`` is lower case."""
    p = _file(tmp_path, f"1 {spelling}:1 1:1\n0 {spelling}:1 1:3\n".encode())
    why = own_error(lambda: _read(p), "d.txt:1", f"'{spelling}:1'", "lower case", "'qid:'")
    assert why is None, why


@pytest.mark.parametrize("token", [b"1: 2", b"1:", b"1 :2"])
def test_unclear_error_a_feature_cut_by_a_blank_is_named_at_its_column(tmp_path: Path, token: bytes) -> None:
    """unclear error: ``1: 2`` / ``1:`` / ``1 :2`` (a cleaning script's stray blank)."""
    p = _file(tmp_path, b"1 qid:1 " + token + b"\n0 qid:1 1:3\n")
    why = own_error(lambda: _read(p), "d.txt:1", "column")
    assert why is None, why


def test_unclear_error_a_gzip_data_file_given_to_evaluate_says_decompress(tmp_path: Path) -> None:
    """unclear error: ``evaluate --data d.txt.gz`` says gzip and how to unpack, exit 2."""
    import gzip

    _file(tmp_path, gzip.compress(b"1 qid:1 1:1\n0 qid:1 1:2\n"), "d.txt.gz")
    _file(tmp_path, b"0.5\n0.1\n", "s.txt")
    why = refused(cli(tmp_path, "evaluate", "--data", "d.txt.gz", "--scores", "s.txt",
                      "--metrics", "ndcg@2"), "d.txt.gz", "gzip", "gunzip")
    assert why is None, why


# --------------------------------------------------------------------- widths across the splits

def test_silently_wrong_a_feature_only_in_test_widens_every_split_as_sklearns_shared_reader(
        tmp_path: Path) -> None:
    """silently wrong number: the largest index of any file is the width of all three
    (``read_svmlight_files``' documented rule, as ``load_svmlight_files``)."""
    s = _splits(tmp_path, test=_with(letor_split(6, 201, 2), " 9:0.5"))
    want = sklearn_datasets.load_svmlight_files(
        [str(tmp_path / f"{n}.txt") for n in ("train", "vali", "test")], query_id=True,
        dtype=np.float32)
    for got, X in zip((s.train, s.vali, s.test), want[0::3], strict=True):
        assert got.n_features == X.shape[1] == 9
        np.testing.assert_array_equal(got.X, X.toarray())


def test_silent_accept_a_feature_only_the_test_file_has_is_warned(tmp_path: Path) -> None:
    """silent accept: feature 9 is absent (zero) in every training row and set in test: the
    test file comes from another feature extraction, and no model can use what it never saw."""
    s = _splits(tmp_path, test=_with(letor_split(6, 201, 2), " 9:0.5"))
    why = _warned(s, "f9", "test")
    assert why is None, why


def test_silent_accept_a_column_present_only_in_vali_is_warned(tmp_path: Path) -> None:
    """silent accept: the validation file holds a feature the training file never has."""
    s = _splits(tmp_path, vali=_with(letor_split(6, 101, 1), " 6:1.25"))
    why = _warned(s, "f6", "vali")
    assert why is None, why


def test_silent_accept_a_feature_missing_from_test_only_is_no_warning_of_that_kind(
        tmp_path: Path) -> None:
    """silent accept (the other side): a training feature the test rows never set is a sparse
    feature, as Yahoo's are; not called a test-only feature."""
    s = _splits(tmp_path, train=_with(letor_split(20, 1, 0), " 7:0.5"))
    assert not [f for f in _findings(s) if "f7" in f.message and f.level == "warning"]


def test_silently_wrong_parquet_splits_of_different_widths_are_refused_naming_the_counts(
        tmp_path: Path) -> None:
    """silently wrong number: Parquet splits keep their own columns; two widths are refused."""
    from bench.data.letor import LetorData
    from bench.data.parquet import write_parquet
    from bench.datasets.resolve import load_path

    rng = np.random.default_rng(0)
    for split, d in (("train", 3), ("vali", 3), ("test", 4)):
        write_parquet(LetorData.build(rng.random((6, d)), np.r_[1, 0, 0, 2, 0, 1],
                                      qid=np.repeat([1, 2], 3)), tmp_path / f"{split}.parquet")
    why = own_error(lambda: load_path(tmp_path), "'train': 3", "'test': 4")
    assert why is None, why


def test_unclear_error_a_parquet_feature_of_1e300_is_named_at_its_row_and_column(tmp_path: Path) -> None:
    """unclear error: float64 1e300 does not fit float32: row and column, not a silent inf."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.parquet import read_parquet

    p = tmp_path / "t.parquet"
    pq.write_table(pa.table({"qid": [1, 1], "label": [1, 0], "f1": [0.5, 1e300]}), p)
    why = own_error(lambda: read_parquet(p), "row 2", "'f1'", "float32")
    assert why is None, why


@pytest.mark.parametrize(("qid", "ok"), [(1.5, False), (1.0, True), (-1.0, True)])
def test_silently_wrong_a_parquet_float_qid_is_read_only_when_it_is_an_integer(
        tmp_path: Path, qid: float, ok: bool) -> None:
    """silently wrong number: a float qid column 1.5 would become query 1 by a cast."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.parquet import read_parquet

    p = tmp_path / "t.parquet"
    pq.write_table(pa.table({"qid": [qid, qid], "label": [1, 0], "f1": [0.5, 1.0]}), p)
    value, exc = call(lambda: read_parquet(p))
    if ok:
        assert exc is None, exc
        assert value.qid.tolist() == [int(qid)] * 2
    else:
        why = api_refused(exc, "row 1", "'qid'", "1.5")
        assert why is None, why


def test_silent_accept_an_all_nan_training_column_is_named_a_constant_feature(tmp_path: Path) -> None:
    """silent accept: a feature missing (NaN) in every training row is as useless as a constant
    one, yet NaN != NaN kept it off the constant-features note."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.letor import LetorSplits
    from bench.data.parquet import read_parquet

    parts = {}
    for split, q0 in (("train", 1), ("vali", 10), ("test", 20)):
        p = tmp_path / f"{split}.parquet"
        nan = [math.nan] * 6 if split == "train" else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
        pq.write_table(pa.table({"qid": [q0] * 3 + [q0 + 1] * 3, "label": [1, 0, 2, 0, 1, 0],
                                 "f1": [0.1, 0.9, 0.5, 0.3, 0.2, 0.7], "f2": nan}), p)
        parts[split] = read_parquet(p)
    s = LetorSplits(name="crawl", **parts)
    assert np.isnan(s.train.X[:, 1]).all()
    const = [f for f in _findings(s) if f.code == "constant_features"]
    assert const, [(f.code, f.message) for f in _findings(s)]
    assert "f2" in const[0].message, const[0].message


# ----------------------------------------------------------------- query structure, in evaluate

def test_silently_wrong_a_query_whose_rows_come_back_later_is_refused_naming_the_row() -> None:
    """silently wrong number: qid 1, 2, 1 would be two groups of query 1 for LightGBM's group
    array; ``evaluate`` names row 3 and the option that sorts."""
    why = own_error(lambda: _evaluate([1, 0, 1], [0.3, 0.2, 0.1], qid=[1, 2, 1], metrics="ndcg@3"),
                    "row 3", "contiguous", "sort_by_qid")
    assert why is None, why


def test_silently_wrong_the_same_query_sorted_equals_pytrec_evals_one_query() -> None:
    """silently wrong number: with ``sort_by_qid=True`` query 1 is one query of two rows:
    pytrec_eval's ndcg and map over {1: a, c; 2: b}."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    labels, scores, qid = [0, 1, 1], [0.3, 0.2, 0.1], [1, 2, 1]
    got = _evaluate(labels, scores, qid=qid, metrics=["ndcg", "map"], profile="trec_eval",
                    sort_by_qid=True).metrics
    qrels = {"1": {"a": 0, "c": 1}, "2": {"b": 1}}
    run = {"1": {"a": 0.3, "c": 0.1}, "2": {"b": 0.2}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(run)
    assert got["ndcg"] == pytest.approx((want["1"]["ndcg"] + want["2"]["ndcg"]) / 2, abs=1e-12)
    assert got["map"] == pytest.approx((want["1"]["map"] + want["2"]["map"]) / 2, abs=1e-12)


def test_silently_wrong_a_20000_document_query_scores_as_pytrec_eval() -> None:
    """silently wrong number: one query of 20,000 documents, two relevant near the bottom."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    n = 20_000
    y = np.zeros(n, dtype=np.int64)
    y[[17, n - 3]] = [2, 1]
    s = -np.arange(n, dtype=np.float64)  # row order is rank order
    got = _evaluate(y, s, qid=np.zeros(n, np.int64), metrics=["ndcg", "map", "mrr"],
                    profile="trec_eval").metrics
    qrels = {"q": {f"d{i}": int(y[i]) for i in range(n)}}
    run = {"q": {f"d{i}": float(s[i]) for i in range(n)}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map", "recip_rank"}).evaluate(run)["q"]
    assert got["ndcg"] == pytest.approx(want["ndcg"], abs=1e-12)
    assert got["map"] == pytest.approx(want["map"], abs=1e-12)
    assert got["mrr"] == pytest.approx(want["recip_rank"], abs=1e-12) == 1 / 18


def test_silently_wrong_10000_one_document_queries_are_counted_and_score_by_hand() -> None:
    """silently wrong number: 10,000 queries of one document, 3,000 relevant: NDCG@10 1 on each
    relevant query, P@10 = 1/10 there, and the diagnostics count 10,000 single-document queries."""
    n = 10_000
    y = (np.arange(n) % 10 < 3).astype(np.int64)
    r = _evaluate(y, np.random.default_rng(0).random(n), qid=np.arange(n),
                  metrics=["ndcg@10", "p@10"])
    assert r.metrics["ndcg@10"] == 1.0
    assert r.metrics["p@10"] == pytest.approx(0.1, abs=1e-15)
    assert r.diagnostics.n_single_document == n
    assert r.diagnostics.n_blank == 7_000


@pytest.mark.parametrize(("profile", "ndcg", "ap"), [
    ("ltrbench", math.nan, math.nan), ("lightgbm", 1.0, 1.0), ("xgboost", 1.0, 1.0),
    ("sklearn", 0.0, 0.0), ("catboost", 1.0, 0.0), ("trec_eval", 0.0, 0.0)])
def test_silently_wrong_an_all_zero_split_scores_what_each_profile_documents(
        profile: str, ndcg: float, ap: float) -> None:
    """silently wrong number: NDCG of a split with no relevant label is undefined; README's table
    says what each profile makes of it (left out: NaN, 1, 0; CatBoost NDCG 1, MAP 0)."""
    got = _evaluate([0, 0, 0, 0], [0.4, 0.3, 0.2, 0.1], qid=[1, 1, 2, 2], metrics=["ndcg@2", "map"],
                    profile=profile).metrics
    for name, want in (("ndcg@2", ndcg), ("map", ap)):
        assert (math.isnan(got[name]) and math.isnan(want)) or got[name] == want, (name, got)


def _exp_ndcg_ties(labels: list[int], k: int, gain) -> float:  # type: ignore[no-untyped-def]
    return float(sklearn_metrics().ndcg_score([[gain(v) for v in labels]], [[0.5] * len(labels)], k=k))


def sklearn_metrics():  # type: ignore[no-untyped-def]
    return pytest.importorskip("sklearn.metrics")


@pytest.mark.parametrize(("profile", "want"), [
    # averaged ties (McSherry & Najork), sklearn's ndcg_score on the gains is the oracle
    ("ltrbench", lambda: _exp_ndcg_ties([1, 0, 2, 0], 2, lambda v: 2 ** v - 1)),
    ("sklearn", lambda: _exp_ndcg_ties([1, 0, 2, 0], 2, lambda v: v)),
    # row order: labels 1, 0 in the top 2; ideal 3 + 1/log2(3)
    ("lightgbm", lambda: 1.0 / (3 + 1 / math.log2(3))),
    # lower label first: 0, 0 in the top 2
    ("catboost", lambda: 0.0),
])
def test_silently_wrong_all_tied_scores_give_each_profiles_tie_rule(profile: str, want) -> None:  # type: ignore[no-untyped-def]
    """silently wrong number: a model that separates nothing (every score 0.5) scores each
    profile's tie rule, computed by hand or by sklearn's ``ndcg_score``."""
    got = _evaluate([1, 0, 2, 0], [0.5] * 4, qid=[7] * 4, metrics="ndcg@2", profile=profile)
    assert got.metrics["ndcg@2"] == pytest.approx(want(), abs=1e-12)
    assert got.diagnostics.n_queries_with_ties_in_topk == 1


def test_silently_wrong_a_label_of_1024_under_linear_gain_is_sklearns_ndcg() -> None:
    """silently wrong number: label 1024 (a click count, not a grade) under linear gain."""
    got = _evaluate([1024, 0, 1], [0.1, 0.2, 0.3], qid=[1, 1, 1], metrics="ndcg@3", profile="sklearn")
    want = sklearn_metrics().ndcg_score([[1024, 0, 1]], [[0.1, 0.2, 0.3]], k=3)
    assert got.metrics["ndcg@3"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("profile", "label", "ok"), [
    ("xgboost", 31, True), ("xgboost", 32, False), ("ltrbench", 1000, False),
    ("lightgbm", 30, True), ("lightgbm", 31, False)])
def test_silently_wrong_labels_at_the_exp2_limits_are_read_or_named(
        profile: str, label: int, ok: bool) -> None:
    """silently wrong number: 2^l - 1 overflows nothing at 31 but LightGBM's default label_gain
    holds 0..30 and XGBoost's check 0..31; a label of 1000 is refused, never a gain of 2^1000."""
    value, exc = call(lambda: _evaluate([label, 0], [0.2, 0.1], qid=[1, 1], metrics="ndcg@2",
                                        profile=profile))
    if ok:
        assert exc is None, exc
        assert value.metrics["ndcg@2"] == 1.0
    else:
        why = api_refused(exc, f"label {label}", "row 1")
        assert why is None, why


# ------------------------------------------------------------------------------ what trains

def test_silent_accept_one_document_per_query_in_test_is_warned(tmp_path: Path) -> None:
    """silent accept: every test query has one document, so every model scores NDCG 1 on every
    relevant query: the leaderboard cannot tell models apart, and nothing said so."""
    s = _splits(tmp_path, test=_one_doc(letor_split(6, 201, 2), 2000))
    why = _warned(s, "test", "one document")
    assert why is None, why


def test_silent_accept_one_document_per_query_in_train_is_warned(tmp_path: Path) -> None:
    """silent accept: a training split of one-document queries holds no pair for LambdaMART."""
    s = _splits(tmp_path, train=_one_doc(letor_split(20, 1, 0), 10_000))
    why = _warned(s, "train", "one document")
    assert why is None, why


def test_silent_accept_a_few_one_document_queries_are_no_warning(tmp_path: Path) -> None:
    """silent accept (the other side): one single-document query among many is data, not a
    broken split: no warning about it."""
    test = letor_split(6, 201, 2) + b"1 qid:999 1:0.5 2:0.5 3:0.5 4:0.5\n"
    s = _splits(tmp_path, test=test)
    assert not [f for f in _findings(s) if "one document" in f.message]


def test_unclear_error_vali_without_a_relevant_document_says_selection_is_arbitrary(
        tmp_path: Path) -> None:
    """unclear error: the warning said 'the metric is undefined or constant' but not that early
    stopping, which reads only that split, then picks an iteration by no merit."""
    s = _splits(tmp_path, vali=_zero_labels(letor_split(6, 101, 1)))
    why = _warned(s, "vali", "early stopping")
    assert why is None, why


def test_silent_accept_train_without_a_relevant_document_is_warned(tmp_path: Path) -> None:
    """silent accept: all training labels 0: 'nothing to learn', a warning (refused by --strict)."""
    s = _splits(tmp_path, train=_zero_labels(letor_split(20, 1, 0)))
    why = _warned(s, "train", "nothing to learn")
    assert why is None, why


def test_silent_accept_every_feature_constant_over_train_is_a_warning_not_a_note(
        tmp_path: Path) -> None:
    """silent accept: every training feature has one value: no model can learn anything; this
    was a note in the manifest only."""
    s = _splits(tmp_path, train=_constant(letor_split(20, 1, 0)))
    why = _warned(s, "every feature", "train")
    assert why is None, why


def test_silent_accept_one_constant_feature_stays_a_note(tmp_path: Path) -> None:
    """silent accept (the other side): one constant column among useful ones is a note."""
    s = _splits(tmp_path, train=_with(letor_split(20, 1, 0), " 5:1"),
                vali=_with(letor_split(6, 101, 1), " 5:1"), test=_with(letor_split(6, 201, 2), " 5:1"))
    const = [f for f in _findings(s) if f.code == "constant_features"]
    assert [f.level for f in const] == ["note"], [(f.code, f.level) for f in _findings(s)]


def test_silent_accept_strict_refuses_a_test_split_of_one_document_queries(tmp_path: Path) -> None:
    """silent accept: ``strict=True`` refuses what the split checks warn about, before training."""
    s = _splits(tmp_path, test=_one_doc(letor_split(6, 201, 2), 2000))
    _, exc, _ = _run(s, strict=True)
    why = api_refused(exc, "one document", "strict")
    assert why is None, why


def test_silent_accept_a_gbdt_that_separates_nothing_is_warned_for_every_seed(tmp_path: Path) -> None:
    """silent accept: constant features: LightGBM grows no split, every test score ties, and the
    leaderboard showed the tie order's NDCG as the model's, for seeds 0 and 1 alike."""
    s = _splits(tmp_path, train=_constant(letor_split(20, 1, 0)))
    _, exc, said = _run(s, seeds=[0, 1], params={"n_trees": 4})
    assert exc is None, exc
    tied = [m for m in said if "same score" in m and "lightgbm-lambdarank" in m and "test" in m]
    assert {("seed 0" in m, "seed 1" in m) for m in tied} >= {(True, False), (False, True)}, said


def test_silently_wrong_lightgbm_on_a_training_query_over_10000_rows_is_a_data_error(
        tmp_path: Path) -> None:
    """traceback: LightGBM's DCGCalculator holds 10,000 positions (kMaxPosition); a training query
    of 10,001 rows escaped ``run`` as a raw ``LightGBMError``."""
    n = 10_001
    big = "".join(f"{i % 3} qid:5 1:{(i % 97) / 97:.3f} 2:{(i % 13) / 13:.3f}\n" for i in range(n))
    s = _splits(tmp_path, train=big.encode(), vali=b"1 qid:6 1:0.5 2:0.1\n0 qid:6 1:0.1 2:0.9\n",
                test=b"1 qid:7 1:0.5 2:0.1\n0 qid:7 1:0.1 2:0.9\n")
    _, exc, _ = _run(s)
    why = api_refused(exc, "train.txt", "query 5", "10001", "10000", "LightGBM")
    assert why is None, why


def test_unclear_error_lightgbm_on_a_test_query_over_10000_rows_is_named_before_training(
        tmp_path: Path) -> None:
    """unclear error: a 20,000-document test query made the cross-check fail afterwards with
    LightGBM's 'exceeds upper limit of 10000' (exit 1, a mismatch); it is named at the door."""
    n = 20_000
    big = "".join(f"{i % 3} qid:9 1:{(i % 97) / 97:.3f} 2:{(i % 13) / 13:.3f} 3:0.5 4:0.25\n"
                  for i in range(n))
    s = _splits(tmp_path, test=big.encode())
    _, exc, _ = _run(s, crosscheck=True)
    why = api_refused(exc, "test.txt", "query 9", "20000", "10000")
    assert why is None, why


def test_unclear_error_the_cli_names_lightgbms_query_limit_with_exit_2(tmp_path: Path) -> None:
    """traceback: ``ltrbench run --quick`` on a folder whose training query has 10,001 rows."""
    root = tmp_path / "crawl"
    root.mkdir()
    big = "".join(f"{i % 2} qid:3 1:{(i % 7) / 7:.3f} 2:{(i % 5) / 5:.3f}\n" for i in range(10_001))
    _file(root, big.encode(), "train.txt")
    _file(root, letor_split(3, 101, 1), "vali.txt")
    _file(root, letor_split(3, 201, 2), "test.txt")
    why = refused(cli(tmp_path, "run", "--dataset", str(root), "--models", "lightgbm", "--seeds",
                      "0", "--quick", "--no-progress", "--out", str(tmp_path / "out")),
                  "train.txt", "10000")
    assert why is None, why


def test_silently_wrong_label_31_is_refused_for_lightgbm_before_training(tmp_path: Path) -> None:
    """silently wrong number: LightGBM's default label_gain holds 0..30: label 31 is named with
    the split's file, never trained with a gain LightGBM does not have."""
    s = _splits(tmp_path, train=letor_split(20, 1, 0).replace(b"\n2 qid", b"\n31 qid", 1))
    _, exc, _ = _run(s)
    why = api_refused(exc, "0..30", "31", "train.txt")
    assert why is None, why


def test_unclear_error_a_test_file_of_comments_only_is_named(tmp_path: Path) -> None:
    """unclear error: a test file the cleaning left with comments only (no data line)."""
    from bench.datasets.resolve import load_path

    root = tmp_path / "crawl"
    root.mkdir()
    _file(root, letor_split(4, 1, 0), "train.txt")
    _file(root, letor_split(2, 101, 1), "vali.txt")
    _file(root, b"# crawled 2026-11-27\n# all rows removed by dedup\n", "test.txt")
    why = own_error(lambda: load_path(root), "test.txt", "no data")
    assert why is None, why


def test_silently_wrong_one_test_query_gives_no_zero_width_interval() -> None:
    """silently wrong number: a test split of one query gave the bootstrap interval [x, x], a
    certainty no sample of one query gives; the interval is unknown (NaN), as a spread of one
    value is (``mean_std``)."""
    from bench.report.stats import bootstrap_ci

    one = bootstrap_ci(np.array([[0.8543], [0.5907]]), n_resamples=200)
    assert np.isnan(one.low).all(), one.low
    assert np.isnan(one.high).all(), one.high
    assert one.mean.tolist() == [0.8543, 0.5907]
    two = bootstrap_ci(np.array([0.2, 0.6, math.nan]), n_resamples=200)
    assert 0.2 <= float(two.low) < float(two.high) <= 0.6


def test_silently_wrong_a_run_on_one_test_query_shows_no_interval(tmp_path: Path) -> None:
    """silently wrong number: the leaderboard of a run whose test split is one query."""
    test = b"\n".join(letor_split(6, 201, 2).splitlines()[:8]) + b"\n"
    value, exc, _ = _run(_splits(tmp_path, test=test), models=["random"], seeds=[0])
    assert exc is None, exc
    board = value.leaderboard()
    assert board["ci_low"].isna().all(), board
    assert board["ci_high"].isna().all(), board


def test_unclear_error_label_31_trains_xgboost_which_accepts_it(tmp_path: Path) -> None:
    """unclear error: XGBoost's ``CheckNDCGLabels`` takes labels up to 31 ("lesser than or equal
    to 31 when the exponential NDCG gain function is used"); ltrbench refused 31 in XGBoost's
    name ('XGBoost objective needs integer relevance labels in 0..30'). 32 is still refused."""
    pytest.importorskip("xgboost")
    train = letor_split(20, 1, 0).replace(b"\n2 qid", b"\n31 qid", 1)
    _, exc, _ = _run(_splits(tmp_path, train=train), models=["xgboost"], params={"n_trees": 3})
    assert exc is None, exc
    over = letor_split(20, 1, 0).replace(b"\n2 qid", b"\n32 qid", 1)
    _, exc, _ = _run(_splits(tmp_path, train=over), models=["xgboost"], params={"n_trees": 3})
    why = api_refused(exc, "32", "train.txt")
    assert why is None, why
