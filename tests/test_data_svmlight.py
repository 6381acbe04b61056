"""SVMlight / LETOR text files: parsing quirks, errors that name file and line, round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.data.letor import LetorData
from bench.data.svmlight import (
    line_of_data_row,
    query_sidecar,
    read_svmlight,
    read_svmlight_files,
    write_svmlight,
)
from bench.errors import DataError

LETOR_TEXT = (
    "# a LETOR file with comments\n"
    "2 qid:10 1:0.5 3:1.25 #docid = GX001\n"
    "\n"
    "0 qid:10 2:-1 #docid = GX002\n"
    "1 qid:11 1:3 2:4 3:5 #docid = GX003\n"
)


def _slow_parse(text: str) -> tuple[list[list[float]], list[float], list[int]]:
    """Obviously-correct reader for the small files of these tests (dense, 3 features)."""
    X, y, q = [], [], []
    for line in text.splitlines():
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        tokens = body.split()
        y.append(float(tokens[0]))
        row = [0.0, 0.0, 0.0]
        for tok in tokens[1:]:
            key, value = tok.split(":")
            if key == "qid":
                q.append(int(value))
            else:
                row[int(key) - 1] = float(value)
        X.append(row)
    return X, y, q


def test_letor_file_with_comments_and_blank_lines_matches_a_hand_parse(tmp_path: Path) -> None:
    f = tmp_path / "train.txt"
    f.write_text(LETOR_TEXT)
    d = read_svmlight(f)
    X, y, q = _slow_parse(LETOR_TEXT)
    assert d.X.tolist() == X
    assert d.y.tolist() == y
    assert d.qid.tolist() == q
    assert d.offsets.tolist() == [0, 2, 3]
    assert d.feature_names == ("f1", "f2", "f3")
    assert d.X.dtype == np.float32


def test_crlf_line_ends_read_the_same_as_lf(tmp_path: Path) -> None:
    lf, crlf = tmp_path / "lf.txt", tmp_path / "crlf.txt"
    lf.write_bytes(LETOR_TEXT.encode())
    crlf.write_bytes(LETOR_TEXT.replace("\n", "\r\n").encode())
    a, b = read_svmlight(lf), read_svmlight(crlf)
    assert np.array_equal(a.X, b.X)
    assert np.array_equal(a.y, b.y)
    assert np.array_equal(a.qid, b.qid)


def test_file_without_qid_takes_groups_from_query_sidecar(tmp_path: Path) -> None:
    f = tmp_path / "rank.train"
    f.write_text("1 1:0.5\n0 2:1\n2 1:1 2:2\n0 1:3\n")
    query_sidecar(f).write_text("3\n1\n")
    d = read_svmlight(f)
    assert d.offsets.tolist() == [0, 3, 4]
    assert d.qid.tolist() == [0, 0, 0, 1]
    assert d.group_sizes.tolist() == [3, 1]


def test_explicit_query_path_overrides_the_sidecar(tmp_path: Path) -> None:
    f = tmp_path / "data.svm"
    f.write_text("1 1:0.5\n0 2:1\n2 1:1 2:2\n0 1:3\n")
    sizes = tmp_path / "groups.txt"
    sizes.write_text("2\n2\n")
    assert read_svmlight(f, query_path=sizes).group_sizes.tolist() == [2, 2]


def test_file_without_qid_or_sidecar_is_an_error_naming_the_query_file(tmp_path: Path) -> None:
    f = tmp_path / "rank.test"
    f.write_text("1 1:0.5\n")
    with pytest.raises(DataError, match=r"rank\.test: .*rank\.test\.query"):
        read_svmlight(f)


def test_group_size_file_given_for_a_file_with_qid_is_an_error_not_ignored(tmp_path: Path) -> None:
    f = tmp_path / "data.svm"
    f.write_text("1 qid:1 1:0.5\n0 qid:1 2:1\n")
    sizes = tmp_path / "groups.txt"
    sizes.write_text("1\n1\n")
    with pytest.raises(DataError, match=r"data\.svm: the file has 'qid:' fields, so the group "
                       r"sizes in '.*groups\.txt' would be ignored"):
        read_svmlight(f, query_path=sizes)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ("2\n2_0\n", r"groups\.txt:2: group size '2_0' is not an integer"),
        ("2\n\u00b2\n", r"groups\.txt:2: group size '\u00b2' is not an integer"),
        ("4\n0\n", r"groups\.txt:2: group size '0' is out of range: expected an integer in 1\.\."),
    ],
)
def test_group_sizes_are_parsed_strictly(tmp_path: Path, sizes: str, message: str) -> None:
    f = tmp_path / "data.svm"
    f.write_text("1 1:0.5\n0 2:1\n2 1:1 2:2\n0 1:3\n")
    (tmp_path / "groups.txt").write_text(sizes)
    with pytest.raises(DataError, match=message):
        read_svmlight(f, query_path=tmp_path / "groups.txt")


def test_a_directory_given_as_data_says_it_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"is a directory: expected an SVMlight/LETOR file"):
        read_svmlight(tmp_path)


def test_sidecar_sizes_that_do_not_add_up_name_the_query_file(tmp_path: Path) -> None:
    f = tmp_path / "rank.train"
    f.write_text("1 1:0.5\n0 2:1\n")
    query_sidecar(f).write_text("3\n")
    with pytest.raises(DataError, match=r"rank\.train\.query: group sizes add up to 3 rows but"):
        read_svmlight(f)


@pytest.mark.parametrize(
    ("bad_line", "lineno"),
    [
        ("1 qid:3 2:abc", 3),  # not a number
        ("1 qid:3 2", 3),  # no colon
        ("x qid:3 2:1", 3),  # bad label
        ("1 qid:3 3:1 2:1", 3),  # indices out of order
        ("1 qid:3 0:1", 3),  # index 0
    ],
)
def test_malformed_line_error_names_file_and_line(tmp_path: Path, bad_line: str, lineno: int) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(f"# header comment\n0 qid:3 1:1\n{bad_line}\n0 qid:3 1:2\n")
    with pytest.raises(DataError) as info:
        read_svmlight(f)
    assert str(info.value).startswith(f"{f}:{lineno}: ")
    assert info.value.line == lineno


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "empty.txt"
    f.write_text("")
    with pytest.raises(DataError, match="empty file"):
        read_svmlight(f)


def test_file_with_only_comments_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "comments.txt"
    f.write_text("# nothing here\n\n")
    with pytest.raises(DataError, match="no data lines"):
        read_svmlight(f)


def test_non_contiguous_qid_names_first_offending_row_and_its_line(tmp_path: Path) -> None:
    f = tmp_path / "shuffled.txt"
    f.write_text("# c\n1 qid:1 1:1\n0 qid:2 1:2\n\n2 qid:1 1:3\n0 qid:2 1:4\n")
    with pytest.raises(DataError) as info:
        read_svmlight(f)
    assert info.value.row == 3  # third data row: qid 1 again
    assert info.value.line == 5  # its line in the file (comment and blank line count)
    assert "reappears" in str(info.value)
    assert "--sort-by-qid" in str(info.value)


def _slow_sort_by_qid(qid: list[int]) -> list[int]:
    order, seen = [], []
    for q in qid:
        if q not in seen:
            seen.append(q)
    for q in seen:
        order.extend(i for i, v in enumerate(qid) if v == q)
    return order


def test_sort_by_qid_groups_queries_in_first_appearance_order_keeping_row_order(
    tmp_path: Path,
) -> None:
    qid = [5, 2, 5, 9, 2, 5]
    lines = [f"{i % 3} qid:{q} 1:{i}" for i, q in enumerate(qid)]
    f = tmp_path / "shuffled.txt"
    f.write_text("\n".join(lines) + "\n")
    d = read_svmlight(f, sort_by_qid=True)
    expected = _slow_sort_by_qid(qid)
    assert d.X[:, 0].astype(int).tolist() == expected
    assert d.qid.tolist() == [qid[i] for i in expected]
    assert d.offsets.tolist() == [0, 3, 5, 6]


def test_sort_by_qid_records_the_file_order_it_applied(tmp_path: Path) -> None:
    qid = [5, 2, 5, 9, 2, 5]
    f = tmp_path / "shuffled.txt"
    f.write_text("".join(f"0 qid:{q} 1:{i}\n" for i, q in enumerate(qid)))
    d = read_svmlight(f, sort_by_qid=True)
    order = d.meta["file_order"]
    assert isinstance(order, np.ndarray)
    assert order.dtype == np.int64
    assert order.tolist() == _slow_sort_by_qid(qid)
    # row i of the result is data row order[i] of the file (feature 1 holds the file position)
    assert d.X[:, 0].astype(int).tolist() == order.tolist()
    (a,) = read_svmlight_files([f], sort_by_qid=True)
    assert a.meta["file_order"].tolist() == order.tolist()  # type: ignore[attr-defined]


def test_sort_by_qid_records_no_order_when_rows_keep_their_file_order(tmp_path: Path) -> None:
    f = tmp_path / "sorted.txt"
    f.write_text("1 qid:3 1:1\n0 qid:3 1:2\n0 qid:1 1:3\n")
    assert "file_order" not in read_svmlight(f, sort_by_qid=True).meta
    assert "file_order" not in read_svmlight(f).meta


def test_line_of_data_row_skips_comment_and_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "letor.txt"
    f.write_text(LETOR_TEXT)  # lines: 1 comment, 2 row 1, 3 blank, 4 row 2, 5 row 3
    assert [line_of_data_row(f, r) for r in (1, 2, 3, 4)] == [2, 4, 5, None]


def test_read_files_share_the_feature_count_of_the_widest_file(tmp_path: Path) -> None:
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    train.write_text("1 qid:1 1:1 7:2\n0 qid:1 2:1\n")
    test.write_text("1 qid:2 1:1\n")
    a, b = read_svmlight_files([train, test])
    assert a.n_features == b.n_features == 7
    assert b.X.tolist() == [[1, 0, 0, 0, 0, 0, 0]]


def test_read_files_names_the_malformed_file(tmp_path: Path) -> None:
    good, bad = tmp_path / "train.txt", tmp_path / "vali.txt"
    good.write_text("1 qid:1 1:1\n")
    bad.write_text("1 qid:1 1:1\n1 qid:1 1:x\n")
    with pytest.raises(DataError, match=r"vali\.txt:2: "):
        read_svmlight_files([good, bad])


@st.composite
def _letor(draw: st.DrawFn) -> LetorData:
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    n, d = sum(sizes), draw(st.integers(1, 4))
    values = draw(st.lists(st.floats(-1e6, 1e6, width=32, allow_subnormal=False),
                           min_size=n * d, max_size=n * d))
    labels = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    qids = draw(st.lists(st.integers(0, 10**6), min_size=len(sizes), max_size=len(sizes),
                         unique=True))
    qid = np.repeat(qids, sizes)
    return LetorData.build(np.asarray(values, dtype=np.float32).reshape(n, d), labels, qid=qid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_letor())
def test_write_then_read_gives_back_the_same_data(tmp_path: Path, data: LetorData) -> None:
    f = tmp_path / "round.txt"
    write_svmlight(data, f)
    back = read_svmlight(f, n_features=data.n_features)
    assert np.array_equal(back.X, data.X)
    assert np.array_equal(back.y, data.y)
    assert np.array_equal(back.qid, data.qid)
    assert np.array_equal(back.offsets, data.offsets)
    sizes = [int(s) for s in query_sidecar(f).read_text().split()]
    assert sizes == data.group_sizes.tolist()


def test_labels_and_queries_only_hold_no_matrix_whatever_the_indices(tmp_path: Path) -> None:
    """evaluate reads with features=False: index 2,000,000,000 is checked, not allocated."""
    p = tmp_path / "huge.svm"
    p.write_text("2 qid:1 1:0.5 2000000000:1.25\n0 qid:1 3:1e-3\n1 qid:2 7:-2\n")
    d = read_svmlight(p, features=False)
    assert d.X.shape == (3, 0)
    np.testing.assert_array_equal(d.y, [2.0, 0.0, 1.0])
    np.testing.assert_array_equal(d.qid, [1, 1, 2])
    np.testing.assert_array_equal(d.offsets, [0, 2, 3])


def test_labels_and_queries_only_still_refuse_a_bad_feature_value(tmp_path: Path) -> None:
    p = tmp_path / "bad.svm"
    p.write_text("2 qid:1 1:0.5\n0 qid:1 3:0x1f\n")
    with pytest.raises(DataError, match=r"bad\.svm:2"):
        read_svmlight(p, features=False)
    q = tmp_path / "inf.svm"
    q.write_text("2 qid:1 1:1e39\n")
    with pytest.raises(DataError, match=r"inf\.svm:1.*float32"):
        read_svmlight(q, features=False)
