"""Strictness of the compiled SVMlight parser: what sklearn/Python accept but ltrbench refuses,
and errors that name the file, the 1-based line, the column and the token."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.data import svmlight_parse
from bench.data.svmlight import read_svmlight, read_svmlight_files
from bench.data.svmlight_parse import parse_svmlight
from bench.errors import DataError

HEADER = "# a comment line\n0 qid:3 1:1 2:1\n\n"  # the bad line is line 4


@pytest.mark.parametrize(
    ("bad", "column", "token", "expected"),
    [
        ("1 qid:3 1:0_4", 9, "1:0_4", "not a plain decimal number"),  # Python float() takes it
        ("1 qid:3 1:0x10", 9, "1:0x10", "no hex"),
        ("1 qid:3 1:nan", 9, "1:nan", "no hex, underscores, inf or nan"),
        ("1 qid:3 1:inf", 9, "1:inf", "not a plain decimal number"),
        ("1 qid:3 1:-Infinity", 9, "1:-Infinity", "not a plain decimal number"),
        ("1 qid:3 1:", 9, "1:", "not a plain decimal number"),
        ("1 qid:3 1:1e", 9, "1:1e", "not a plain decimal number"),
        ("1 qid:3 1:1.2.3", 9, "1:1.2.3", "not a plain decimal number"),
        ("1 qid:3 1:4e38", 9, "1:4e38", "does not fit a float32"),
        ("1_0 qid:3 1:1", 1, "1_0", "the label is not a plain decimal number"),
        ("nan qid:3 1:1", 1, "nan", "the label is not a plain decimal number"),
        ("0x1 qid:3 1:1", 1, "0x1", "the label is not a plain decimal number"),
        ("1 qid:3 +2:1", 9, "+2:1", "plain integer >= 1 (digits only)"),
        ("1 qid:3 2.0:1", 9, "2.0:1", "plain integer >= 1"),
        ("1 qid:3 1_2:1", 9, "1_2:1", "plain integer >= 1"),
        ("1 qid:3 0:1", 9, "0:1", "feature index 0: SVMlight indices start at 1"),
        ("1 qid:3 3:1 2:1", 13, "2:1", "strictly increasing within a line (this one follows index 3)"),
        ("1 qid:3 2:1 2:5", 13, "2:5", "strictly increasing"),
        ("1 qid:3 2", 9, "2", "expected 'index:value'"),
        ("1 qid:3 abc", 9, "abc", "expected 'index:value'"),
        ("1 qid:3 99999999999999999999:1 5:1", 9, "99999999999999999999:1", "does not fit a 64-bit"),
        ("1 qid:0x3 1:1", 3, "qid:0x3", "must be an integer"),
        ("1 qid:3_0 1:1", 3, "qid:3_0", "must be an integer"),
        ("1 qid: 1:1", 3, "qid:", "must be an integer"),
        ("1 qid:9223372036854775808 1:1", 3, "qid:9223372036854775808", "does not fit a 64-bit"),
        ("1 1:1 qid:3", 3, "1:1", "no 'qid:' after the label"),
        ("1 qid:3 1:1 qid:4", 13, "qid:4", "'qid:' must come right after the label"),
    ],
)
def test_malformed_token_names_file_line_column_token_and_what_was_expected(
    tmp_path: Path, bad: str, column: int, token: str, expected: str
) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(f"{HEADER}{bad}\n0 qid:3 1:2\n")
    with pytest.raises(DataError) as info:
        read_svmlight(f)
    msg = str(info.value)
    assert msg.startswith(f"{f}:4: malformed SVMlight line: column {column}, {token!r}: "), msg
    assert expected in msg
    assert info.value.line == 4


def test_crlf_file_errors_count_lines_and_columns_the_same(tmp_path: Path) -> None:
    f = tmp_path / "crlf.txt"
    f.write_bytes(b"0 qid:1 1:1\r\n\r\n1 qid:1 1:1 2:x\r\n")
    with pytest.raises(DataError, match=r"crlf\.txt:3: malformed SVMlight line: column 13, '2:x'"):
        read_svmlight(f)


def test_int64_extremes_of_qid_are_accepted(tmp_path: Path) -> None:
    f = tmp_path / "q.txt"
    f.write_text("1 qid:-9223372036854775808 1:1\n1 qid:9223372036854775807 1:1\n")
    parsed = parse_svmlight(f)
    assert parsed.qid is not None
    assert parsed.qid.tolist() == [-(2**63), 2**63 - 1]


def test_a_line_without_qid_in_a_qid_file_is_an_error_naming_it(tmp_path: Path) -> None:
    f = tmp_path / "mixed.txt"
    f.write_text("1 qid:1 1:1\n0 qid:1 1:2\n2 1:3\n")
    with pytest.raises(DataError, match=r"mixed\.txt:3: .*no 'qid:' after the label"):
        read_svmlight(f)


def test_a_qid_line_in_a_file_without_qid_is_an_error_naming_it(tmp_path: Path) -> None:
    f = tmp_path / "mixed.txt"
    f.write_text("1 1:1\n0 1:2\n# c\n2 qid:4 1:3\n")
    with pytest.raises(DataError, match=r"mixed\.txt:4: .*'qid:4'.*first data line of the file"):
        read_svmlight(f)


def test_index_beyond_the_limit_is_refused_before_allocating(tmp_path: Path) -> None:
    f = tmp_path / "wide.txt"
    f.write_text("1 qid:1 1:1\n0 qid:1 1:1 50000000:2\n")
    with pytest.raises(DataError) as info:
        read_svmlight(f)
    assert str(info.value).startswith(f"{f}:2: feature index 50000000 is beyond the limit of "
                                      "10,000,000 features")
    with pytest.raises(DataError, match=r"wide\.txt:2: feature index 50000000 is beyond the limit of 100 "):
        parse_svmlight(f, max_index=100)


def test_index_beyond_int64_at_the_end_of_a_line_is_refused_by_the_count_pass(
    tmp_path: Path,
) -> None:
    f = tmp_path / "wide.txt"
    f.write_text("1 qid:1 1:1\n0 qid:1 1:1 99999999999999999999:2\n")
    with pytest.raises(DataError, match=r"wide\.txt:2: a feature index on this line has more "
                                        r"than 18 digits: beyond the limit of 10,000,000"):
        read_svmlight(f)


def test_huge_index_in_the_middle_of_a_line_is_an_order_error_not_an_allocation(tmp_path: Path) -> None:
    f = tmp_path / "wide.txt"
    f.write_text("1 qid:1 1:1 99999999999:1 2:1\n")
    with pytest.raises(DataError, match=r"wide\.txt:1: .*'2:1'.*follows index 99999999999"):
        read_svmlight(f)


def test_dense_matrix_larger_than_memory_is_refused_naming_the_widest_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "big.txt"
    f.write_text("1 qid:1 1:1\n# c\n0 qid:1 9000000:1\n")
    monkeypatch.setattr(svmlight_parse, "_available_memory", lambda: 50_000_000)
    with pytest.raises(DataError, match=r"big\.txt:3: a dense matrix of 2 rows x 9,000,000 "
                                        r"features needs 0\.1 GB, more than the 0\.1 GB"):
        read_svmlight(f)


def test_index_above_n_features_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "train.txt"
    f.write_text("1 qid:1 1:1\n0 qid:1 1:1 7:2\n")
    with pytest.raises(DataError, match=r"train\.txt:2: feature index 7 is beyond n_features=5"):
        read_svmlight(f, n_features=5)


def test_error_in_a_later_chunk_names_its_line_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"{i % 3} qid:{i // 5} 1:{i} 2:0.5 # row {i}" for i in range(200)]
    lines[150] = "1 qid:30 1:1 2:0x5"
    f = tmp_path / "long.txt"
    f.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(svmlight_parse, "CHUNK_BYTES", 256)
    for threads in (1, 2):
        with pytest.raises(DataError, match=r"long\.txt:151: .*column 14, '2:0x5'"):
            parse_svmlight(f, threads=threads)


def test_first_malformed_line_is_reported_when_several_chunks_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"1 qid:1 1:{i}" for i in range(100)]
    lines[30] = "1 qid:1 1:bad"
    lines[90] = "1 qid:1 1:worse"
    f = tmp_path / "two.txt"
    f.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(svmlight_parse, "CHUNK_BYTES", 100)
    with pytest.raises(DataError, match=r"two\.txt:31: "):
        parse_svmlight(f, threads=2)


def test_read_files_names_the_malformed_file_and_line(tmp_path: Path) -> None:
    good, bad = tmp_path / "train.txt", tmp_path / "vali.txt"
    good.write_text("1 qid:1 1:1\n")
    bad.write_text("1 qid:1 1:1\n1 qid:1 1:1e+\n")
    with pytest.raises(DataError, match=r"vali\.txt:2: malformed SVMlight line: column 9, '1:1e\+'"):
        read_svmlight_files([good, bad])


def test_fallback_tokens_are_converted_exactly_and_overflow_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "fb.txt"
    f.write_text("1.00000000000000000000001 qid:1 1:1e-320 2:0.30000000000000000000001\n")
    parsed = parse_svmlight(f)
    assert parsed.y.tolist() == [1.0]
    assert parsed.X[0].tolist() == [0.0, np.float32(0.3)]
    g = tmp_path / "over.txt"
    g.write_text("1 qid:1 1:1\n1 qid:1 1:1e400\n")
    with pytest.raises(DataError, match=r"over\.txt:2: .*'1:1e400'.*does not fit a float32"):
        parse_svmlight(g)
    h = tmp_path / "label.txt"
    h.write_text("1 qid:1 1:1\n1e400 qid:1 1:1\n")
    with pytest.raises(DataError, match=r"label\.txt:2: .*label '1e400' is not a finite number"):
        parse_svmlight(h)


def test_many_fallback_tokens_in_one_chunk_are_all_converted(tmp_path: Path) -> None:
    n = 3000  # more than the kernel's first fallback buffer
    f = tmp_path / "long.txt"
    f.write_text("".join(f"0 qid:1 1:0.{i:025d}\n" for i in range(1, n + 1)))
    parsed = parse_svmlight(f)
    expected = np.array([float(f"0.{i:025d}") for i in range(1, n + 1)], dtype=np.float32)
    assert parsed.X[:, 0].tobytes() == expected.tobytes()


def test_bom_line_numbers_stay_right(tmp_path: Path) -> None:
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbf# comment\n1 qid:1 1:1\n1 qid:1 1:x\n")
    with pytest.raises(DataError, match=r"bom\.txt:3: malformed SVMlight line: column 9"):
        read_svmlight(f)


def test_nul_byte_in_data_is_an_error_but_fine_in_a_comment(tmp_path: Path) -> None:
    f = tmp_path / "nul.txt"
    f.write_bytes(b"1 qid:1 1:1 # \x00 fine\n1 qid:1 1:1\x00\n")
    with pytest.raises(DataError, match=r"nul\.txt:2: .*not a plain decimal number"):
        read_svmlight(f)
