"""Round 17: a European e-commerce analyst's files (Excel and old ERP exports) at every reader.

Ratings tables for ``ltrbench convert`` (semicolon CSV, German headers given by the column
options, decimal commas, thousands separators, spreadsheet error cells, day-first dates, DOS
line ends and end-of-file marks, mixed encodings), TREC qrels and runs, LETOR / SVMlight files,
config TOML, and the Python entry points that take frames. The oracle of every case: the value
the user meant (hand arithmetic, pytrec_eval, the same table written plainly), or a refusal that
names the file, the line (or row) and the column, and what was expected.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, DataError, LtrbenchError
from tests.hostile_kit import QRELS, RUN, call, cli, csv_values, pytrec, refused

GERMAN = dict(user="Benutzer", item="Artikel", rating="Bewertung", timestamp="Zeitstempel")
HEADER = "Benutzer;Artikel;Bewertung;Zeitstempel"


def _rows(rating: str = "{r}") -> list[str]:
    """Six users x five items: user u rates item i (u*3+i) % 5 + 1 at time 1000u+i."""
    return [f"{u};{i};{rating.format(r=(u * 3 + i) % 5 + 1)};{1000 * u + i}"
            for u in range(1, 7) for i in range(1, 6)]


def _plain(tmp_path: Path) -> pd.DataFrame:
    p = tmp_path / "plain.csv"
    p.write_text("\n".join([HEADER, *_rows()]) + "\n")
    return _load(p).frame


def _load(p: Path, **kw: Any) -> Any:
    from bench.data.tabular import load_ratings_table

    args = {**GERMAN, "sep": ";", **kw}
    return load_ratings_table(p, **args)


def _write(tmp_path: Path, data: bytes, name: str = "bewertungen.csv") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _names(exc: BaseException, *words: str) -> None:
    """``exc`` is ltrbench's own error and its message holds every word."""
    assert isinstance(exc, LtrbenchError), repr(exc)
    _has(str(exc), *words)


def _has(text: str, *words: str) -> None:
    missing = [w for w in words if w not in text]
    assert not missing, (missing, text)


def _refusal(fn: Any, *words: str) -> str:
    with pytest.raises(LtrbenchError) as err:
        fn()
    text = str(err.value)
    _has(text, *words)
    return text


def _plain_or_named(tmp_path: Path, p: Path, *words: str) -> None:
    """The table at ``p`` reads as the plain one, or ltrbench refuses it naming every word."""
    got, exc = call(lambda: _load(p).frame)
    if exc is not None:
        _names(exc, *words)
        return
    pd.testing.assert_frame_equal(got, _plain(tmp_path))


def _convert(tmp_path: Path, name: str, *extra: str) -> Any:
    return cli(tmp_path, "convert", "--ratings", name, "--layout", "csv", "--sep", ";",
               "--user", "Benutzer", "--item", "Artikel", "--rating", "Bewertung",
               "--timestamp", "Zeitstempel", "--out", "out", *extra)


# ---------------------------------------------------------------- ratings: line ends, EOF marks
def test_a_cr_only_semicolon_table_reads_as_the_lf_table(tmp_path: Path) -> None:
    """Classic Mac OS Excel ("CSV (Macintosh)") ends lines with CR alone."""
    p = _write(tmp_path, ("\r".join([HEADER, *_rows()]) + "\r").encode())
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


def test_mixed_line_ends_in_one_table_read_as_the_lf_table(tmp_path: Path) -> None:
    rows = [HEADER, *_rows()]
    ends = ["\r\n", "\n", "\r"]
    text = "".join(r + ends[k % 3] for k, r in enumerate(rows))
    p = _write(tmp_path, text.encode())
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


def test_a_final_ctrl_z_after_crlf_lines_is_the_lf_table_or_refused_at_its_line(
        tmp_path: Path) -> None:
    """An old DOS/ERP export ends with 0x1A: never a 31st rating, never a traceback."""
    p = _write(tmp_path, ("\r\n".join([HEADER, *_rows()]) + "\r\n").encode() + b"\x1a")
    _plain_or_named(tmp_path, p, f"{p.name}:32", "Ctrl-Z")


def test_a_ctrl_z_glued_to_the_last_line_is_no_part_of_its_timestamp(tmp_path: Path) -> None:
    p = _write(tmp_path, ("\r\n".join([HEADER, *_rows()])).encode() + b"\x1a")
    _plain_or_named(tmp_path, p, f"{p.name}:31", "Ctrl-Z")


def test_a_trailing_separator_on_every_line_reads_as_the_plain_table(tmp_path: Path) -> None:
    """Some ERP exports end every line (header too) with the separator."""
    p = _write(tmp_path, ("\n".join(r + ";" for r in [HEADER, *_rows()]) + "\n").encode())
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


def test_a_trailing_separator_on_data_lines_only_is_refused_not_shifted(tmp_path: Path) -> None:
    """pandas would make the first column the index and shift every column by one."""
    p = _write(tmp_path, ("\n".join([HEADER, *(r + ";" for r in _rows())]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:2")


# ---------------------------------------------------------------- ratings: decimal commas
def test_an_unquoted_decimal_comma_in_a_comma_table_is_refused_not_split(tmp_path: Path) -> None:
    """``1,10,3,5,1001``: a rating of 3,5 split into two fields."""
    p = _write(tmp_path, b"user,item,rating,ts\n1,10,4,1000\n1,11,3,5,1001\n")
    from bench.data.tabular import load_ratings_table

    _refusal(lambda: load_ratings_table(p, user="user", item="item", rating="rating",
                                        timestamp="ts"), f"{p.name}:3")


def test_a_quoted_decimal_comma_in_a_comma_table_is_refused_naming_it(tmp_path: Path) -> None:
    p = _write(tmp_path, b'user,item,rating,ts\n1,10,4,1000\n1,11,"3,5",1001\n')
    from bench.data.tabular import load_ratings_table

    _refusal(lambda: load_ratings_table(p, user="user", item="item", rating="rating",
                                        timestamp="ts"), f"{p.name}:3", "rating",
             "decimal comma")


def test_decimal_comma_ratings_through_convert_name_file_line_and_column(tmp_path: Path) -> None:
    _write(tmp_path, ("\n".join([HEADER, *_rows("{r},5")]) + "\n").encode())
    assert refused(_convert(tmp_path, "bewertungen.csv"), "bewertungen.csv", "2",
                   "Bewertung", "decimal comma") is None
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("stamp", ["1.234.567", "1 234 567", "1\u00a0234\u00a0567",
                                   "1\u202f234\u202f567", "1'234'567"])
def test_a_thousands_grouped_timestamp_is_refused_naming_the_line(tmp_path: Path,
                                                                 stamp: str) -> None:
    rows = _rows()
    rows[3] = f"1;4;3;{stamp}"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:5", "Zeitstempel")


@pytest.mark.parametrize("user", ["1.234", "12.345.678"])
def test_a_thousands_grouped_user_id_is_refused_not_read_as_a_fraction(tmp_path: Path,
                                                                      user: str) -> None:
    rows = _rows()
    rows[6] = f"{user};2;3;2002"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:8", "Benutzer")


def test_a_german_scientific_id_is_refused_not_a_second_item(tmp_path: Path) -> None:
    """Excel shows a long id as ``1,23E+05`` in a German locale and saves it so: its digits are
    lost (123456 became 1,23E+05); read as the text id ``1,23E+05`` it would be an item of its
    own beside ``123000``."""
    rows = _rows()
    rows[0] = "1;1,23E+05;4;1001"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:2", "Artikel", "1,23E+05")


# ---------------------------------------------------------------- ratings: spreadsheet cells
@pytest.mark.parametrize("cell", ["#N/A", "#NV", "#WERT!", "#DIV/0!", "#VALUE!", "#BEZUG!",
                                  "-", "85%", "WAHR", "4 Sterne", "\u2212"])
def test_a_spreadsheet_cell_as_a_rating_is_refused_naming_line_column_and_cell(
        tmp_path: Path, cell: str) -> None:
    rows = _rows()
    rows[4] = f"1;5;{cell};1005"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:6", "Bewertung")


@pytest.mark.parametrize("cell", ["#N/A", "#WERT!", "-", "#BEZUG!"])
def test_a_spreadsheet_error_cell_as_an_item_id_is_refused(tmp_path: Path, cell: str) -> None:
    """An id column of numbers holding ``#WERT!`` would otherwise become one more text item."""
    rows = _rows()
    rows[2] = f"1;{cell};3;1003"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:4", "Artikel")


def test_a_rating_with_a_trailing_tab_reads_as_the_plain_rating(tmp_path: Path) -> None:
    rows = [r.replace(f";{1000 + 2}", f"\t;{1000 + 2}") for r in _rows()]
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


def test_ids_written_as_excel_decimals_are_the_same_ids(tmp_path: Path) -> None:
    """``1.0`` and ``1E+00`` are the id 1, as the module docstring documents."""
    rows = [r.replace("1;", "1.0;", 1) if k % 2 else r for k, r in enumerate(_rows())]
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


@pytest.mark.parametrize("date", ["31.12.2020", "31.12.2020 14:30", "31.12.20"])
def test_a_day_first_date_is_its_day_or_refused(tmp_path: Path, date: str) -> None:
    """``dd.mm.yyyy``: 31.12.2020 can only be the 31st of December; never another instant."""
    rows = [f"{u};{i};{(u * 3 + i) % 5 + 1};{date}" for u in range(1, 7) for i in range(1, 6)]
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    got, exc = call(lambda: _load(p).frame["timestamp"].to_numpy())
    if exc is not None:
        _names(exc, p.name, "Zeitstempel")
        return
    want = pd.Timestamp("2020-12-31 14:30" if "14:30" in date else "2020-12-31", tz="UTC")
    assert (got == int(want.timestamp())).all(), got[:3]


def test_an_ambiguous_dotted_date_is_refused_naming_both_readings(tmp_path: Path) -> None:
    rows = [f"{u};{i};3;0{(u % 9) + 1}.0{i}.2021" for u in range(1, 7) for i in range(1, 6)]
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    got, exc = call(lambda: _load(p).frame["timestamp"].to_numpy())
    if exc is not None:
        _names(exc, p.name, "Zeitstempel")
        return
    # read: then day-first, as every dotted date in Europe is
    assert got[0] == int(pd.Timestamp("2021-01-02", tz="UTC").timestamp()), got[0]


# ---------------------------------------------------------------- ratings: encodings
def test_a_cp1252_header_is_refused_naming_line_1_and_the_byte(tmp_path: Path) -> None:
    p = _write(tmp_path, "Benutzer;Artikel;Bewertung;Zeitstempel;Préis\n".encode("cp1252")
               + "\n".join(r + ";1" for r in _rows()).encode() + b"\n")
    _refusal(lambda: _load(p), p.name, "1", "0xe9")


def test_a_latin1_line_in_an_unread_column_leaves_the_read_values_as_written(
        tmp_path: Path) -> None:
    """One line of the city column (not asked for) in latin-1: the ratings read are those of
    the plain table; the bytes of a column ltrbench does not read change no value."""
    lines = ("\n".join([HEADER + ";Stadt", *(r + ";Köln" for r in _rows())]) + "\n").split("\n")
    data = b"\n".join(ln.encode("latin-1" if k == 17 else "utf-8") for k, ln in enumerate(lines))
    p = _write(tmp_path, data)
    pd.testing.assert_frame_equal(_load(p).frame, _plain(tmp_path))


def test_a_latin1_item_name_in_a_utf8_table_names_its_line(tmp_path: Path) -> None:
    rows = [f"{u};Käse {i};{(u * 3 + i) % 5 + 1};{1000 * u + i}"
            for u in range(1, 7) for i in range(1, 6)]
    lines = ("\n".join([HEADER, *rows]) + "\n").split("\n")
    data = b"\n".join(ln.encode("latin-1" if k == 17 else "utf-8") for k, ln in enumerate(lines))
    p = _write(tmp_path, data)
    _refusal(lambda: _load(p), f"{p.name}:18", "UTF-8")


def test_a_mac_roman_item_name_is_refused_naming_its_line(tmp_path: Path) -> None:
    rows = _rows()
    rows[9] = "2;Caf\u00e9;4;2005"
    text = "\n".join([HEADER, *rows]) + "\n"
    p = _write(tmp_path, text.encode("mac_roman"))
    _refusal(lambda: _load(p), p.name, "11")


def test_a_utf16_be_unicode_text_export_is_refused_naming_iconv(tmp_path: Path) -> None:
    """Excel's "Unicode text": UTF-16 with a byte-order mark, tab-separated (here BE)."""
    text = "\n".join(r.replace(";", "\t") for r in [HEADER, *_rows()]) + "\n"
    p = _write(tmp_path, b"\xfe\xff" + text.encode("utf-16-be"), "bewertungen.txt")
    _refusal(lambda: _load(p, sep="\t"), p.name, "UTF-16", "iconv")


def test_a_utf8_bom_semicolon_table_with_sep_line_names_the_sep_line(tmp_path: Path) -> None:
    p = _write(tmp_path, b"\xef\xbb\xbfsep=;\r\n" + "\r\n".join([HEADER, *_rows()]).encode())
    _refusal(lambda: _load(p), p.name, "sep=;")


def test_a_nul_byte_inside_a_rating_line_is_refused_naming_the_line(tmp_path: Path) -> None:
    rows = _rows()
    rows[20] = "5;1;4\x00;5001"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), p.name, "22")


def test_a_quoted_item_name_with_a_line_break_names_the_right_line_later(
        tmp_path: Path) -> None:
    """A quoted cell holding ``;`` and a line break, then a bad rating four lines down: the
    message names the file's line, not the record's."""
    rows = [r.replace(";", ";\"A;\nB\";", 1) if k == 1 else r.replace(";", ";x;", 1)
            for k, r in enumerate(_rows())]
    rows[4] = rows[4].rsplit(";", 2)[0] + ";#WERT!;1005"
    p = _write(tmp_path, ("\n".join(["Benutzer;Name;Artikel;Bewertung;Zeitstempel", *rows])
                          + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:7", "Bewertung")


# ---------------------------------------------------------------- ratings: Parquet and frames
def test_a_parquet_table_of_decimal_comma_text_ratings_is_refused_naming_row(
        tmp_path: Path) -> None:
    p = tmp_path / "r.parquet"
    pd.DataFrame({"Benutzer": [1, 1, 2], "Artikel": [1, 2, 1], "Bewertung": ["4", "3,5", "2"],
                  "Zeitstempel": [1, 2, 3]}).to_parquet(p)
    from bench.data.tabular import load_ratings_table

    _refusal(lambda: load_ratings_table(p, **GERMAN), p.name, "row 2", "Bewertung")


def test_a_ratings_frame_of_decimal_comma_text_is_refused_naming_row_and_column() -> None:
    from bench.data.ratings import as_ratings

    frame = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "rating": ["4", "3,5", "2"],
                          "timestamp": [1, 2, 3]})
    _refusal(lambda: as_ratings(frame), "rating", "row 2")


# ---------------------------------------------------------------- TREC qrels and runs
def _pytrec_map() -> float:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
    runs = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
    return pytrec(qrels, runs, "map")


def _eval(tmp_path: Path, qrels: bytes, run: bytes) -> Any:
    (tmp_path / "q.txt").write_bytes(qrels)
    (tmp_path / "r.txt").write_bytes(run)
    return cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "map",
               "--format", "csv")


def _value_or_line_error(res: Any, name: str, *words: str) -> None:
    if res.status == 2:
        assert refused(res, name, *words) is None, res.err
        return
    assert res.status == 0, res.err
    assert csv_values(res)["map"] == pytest.approx(_pytrec_map(), abs=1e-12)


def test_a_run_ending_in_ctrl_z_after_crlf_is_the_plain_run_or_refused(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS, RUN.replace(b"\n", b"\r\n") + b"\x1a")
    _value_or_line_error(res, "r.txt", "6", "Ctrl-Z")


def test_qrels_ending_in_ctrl_z_are_the_plain_qrels_or_refused(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS.replace(b"\n", b"\r\n") + b"\x1a", RUN)
    _value_or_line_error(res, "q.txt", "6", "Ctrl-Z")


def test_mixed_line_ends_in_qrels_and_run_equal_pytrec_eval(tmp_path: Path) -> None:
    def mix(data: bytes) -> bytes:
        lines = data.decode().splitlines()
        return "".join(ln + ("\r\n", "\r", "\n")[k % 3] for k, ln in enumerate(lines)).encode()

    res = _eval(tmp_path, mix(QRELS), mix(RUN))
    assert res.status == 0, res.err
    assert csv_values(res)["map"] == pytest.approx(_pytrec_map(), abs=1e-12)


def test_cr_only_qrels_equal_pytrec_eval(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS.replace(b"\n", b"\r"), RUN)
    assert res.status == 0, res.err
    assert csv_values(res)["map"] == pytest.approx(_pytrec_map(), abs=1e-12)


@pytest.mark.parametrize("rel", [b"1,0", b"2,5", b"1.0", b"WAHR", b"#N/A"])
def test_a_spreadsheet_relevance_in_qrels_is_refused_naming_line(tmp_path: Path,
                                                                rel: bytes) -> None:
    res = _eval(tmp_path, QRELS.replace(b"1 0 c 2", b"1 0 c " + rel), RUN)
    assert refused(res, "q.txt", "3") is None, res.err


def test_semicolon_separated_qrels_are_refused_at_line_1(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS.replace(b" ", b";"), RUN)
    assert refused(res, "q.txt", "1") is None, res.err


def test_a_semicolon_run_with_decimal_commas_is_refused_at_line_1(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS, RUN.replace(b" ", b";").replace(b"0.", b"0,"))
    assert refused(res, "r.txt", "1") is None, res.err


def test_a_run_score_in_german_scientific_notation_is_refused(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS, RUN.replace(b" 0.4 ", b" 4,00E-01 "))
    assert refused(res, "r.txt", "1") is None, res.err


def test_a_cp1252_docno_in_a_run_is_refused_naming_line_and_byte(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS, RUN.replace(b"2 Q0 e", b"2 Q0 caf\xe9"))
    assert refused(res, "r.txt", "5", "0xe9") is None, res.err


def test_a_utf16_le_run_with_bom_is_refused_naming_iconv(tmp_path: Path) -> None:
    res = _eval(tmp_path, QRELS, b"\xff\xfe" + RUN.decode().replace("\n", "\r\n")
                .encode("utf-16-le"))
    assert refused(res, "r.txt", "UTF-16", "iconv") is None, res.err


def test_leading_zeros_kept_in_qrels_dropped_in_run_are_said(tmp_path: Path) -> None:
    """qrels ``007`` (a text export) against run ``7`` (Excel dropped the zeros): two ids by the
    documented rule; a query judged and never retrieved is said, never a silent 0 or drop."""
    res = _eval(tmp_path, QRELS.replace(b"2 0 ", b"007 0 "), RUN.replace(b"2 Q0", b"7 Q0"))
    if res.status == 2:
        assert refused(res, "007") is None
        return
    assert res.status == 0, res.err
    assert "007" in res.err or "1 qrels quer" in res.err or "no run line" in res.err, res.err


# ---------------------------------------------------------------- LETOR / SVMlight
LETOR = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"


def _read_svm(p: Path) -> Any:
    from bench.data.svmlight import read_svmlight

    return read_svmlight(p)


def test_a_letor_file_ending_in_ctrl_z_is_the_plain_file_or_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, LETOR.replace(b"\n", b"\r\n") + b"\x1a", "train.txt")
    q = _write(tmp_path, LETOR, "plain.txt")
    got, exc = call(lambda: _read_svm(p))
    if exc is not None:
        _names(exc, "train.txt", "6", "Ctrl-Z")
        return
    want = _read_svm(q)
    assert np.array_equal(got.y, want.y)
    assert np.array_equal(got.qid, want.qid)


def test_a_letor_file_with_mixed_line_ends_reads_as_the_plain_file(tmp_path: Path) -> None:
    lines = LETOR.decode().splitlines()
    p = _write(tmp_path, "".join(ln + ("\r", "\r\n", "\n")[k % 3]
                                 for k, ln in enumerate(lines)).encode(), "train.txt")
    want = _read_svm(_write(tmp_path, LETOR, "plain.txt"))
    got = _read_svm(p)
    assert np.array_equal(got.y, want.y)
    assert np.array_equal(got.qid, want.qid)
    assert np.array_equal(np.asarray(got.X.todense() if hasattr(got.X, "todense") else got.X),
                          np.asarray(want.X.todense() if hasattr(want.X, "todense") else want.X))


@pytest.mark.parametrize(("old", "new"), [(b"1:0.5", b"1:0,5"), (b"2 qid:1", b"2,0 qid:1"),
                                     (b"qid:1 1:0.5", b"qid:1,0 1:0.5"),
                                     (b"1:0.5", b"1:1.234.567"), (b"1:0.5", b"1:50%")])
def test_a_locale_number_in_a_letor_line_is_refused_naming_file_and_line(
        tmp_path: Path, old: bytes, new: bytes) -> None:
    p = _write(tmp_path, LETOR.replace(old, new, 1), "train.txt")
    _refusal(lambda: _read_svm(p), "train.txt", "1")


def test_a_latin1_comment_in_a_letor_line_is_read_or_refused_at_its_line(tmp_path: Path) -> None:
    """LETOR comments hold document ids: ``# docid = café`` written in latin-1."""
    p = _write(tmp_path, LETOR.replace(b"1:0.1\n", b"1:0.1 # docid = caf\xe9\n"), "train.txt")
    got, exc = call(lambda: _read_svm(p))
    if exc is not None:
        _names(exc, "train.txt", "2")
        return
    assert list(got.y) == [2, 0, 1, 1, 0]


# ---------------------------------------------------------------- scores files
def test_a_scores_file_ending_in_ctrl_z_is_the_plain_file_or_refused(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_bytes(LETOR)
    (tmp_path / "s.txt").write_bytes(b"0.9\r\n0.1\r\n0.5\r\n0.2\r\n0.8\r\n\x1a")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
              "ndcg@10", "--format", "csv")
    if res.status == 2:
        assert refused(res, "s.txt", "6", "Ctrl-Z") is None, res.err
        return
    (tmp_path / "s2.txt").write_bytes(b"0.9\n0.1\n0.5\n0.2\n0.8\n")
    want = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s2.txt", "--metrics",
               "ndcg@10", "--format", "csv")
    assert res.status == 0, res.err
    assert csv_values(res) == csv_values(want)


# ---------------------------------------------------------------- config TOML
def _config(tmp_path: Path, data: bytes) -> str:
    from bench.benchmark.config import RunConfig

    p = _write(tmp_path, data, "lauf.toml")
    with pytest.raises((ConfigError, DataError)) as err:
        RunConfig.load(p)
    return str(err.value)


def test_a_decimal_comma_learning_rate_in_a_config_names_file_and_line(tmp_path: Path) -> None:
    text = _config(tmp_path, b'dataset = "mq2008"\nmodels = ["lightgbm-lambdarank"]\n'
                             b'[model_params.lightgbm-lambdarank]\nlearning_rate = 0,1\n')
    _has(text, "lauf.toml", "line 4", "decimal comma", "0.1")


@pytest.mark.parametrize("path", ["C:\\Users\\anna\\daten", "C:\\daten", "D:\\Bewertungen\\x"])
def test_a_windows_path_in_a_double_quoted_config_string_says_how_to_write_it(
        tmp_path: Path, path: str) -> None:
    """``data_dir = "C:\\Users\\..."``: TOML's escapes (``\\U``, ``\\d``) make it invalid;
    the message names the line and says to use single quotes or '/'."""
    text = _config(tmp_path, f'dataset = "mq2008"\ndata_dir = "{path}"\n'.encode())
    _has(text, "lauf.toml", "line 2", "single quotes", "'/'")


def test_a_decimal_comma_text_learning_rate_names_the_key(tmp_path: Path) -> None:
    text = _config(tmp_path, b'dataset = "mq2008"\nmodels = ["lightgbm-lambdarank"]\n'
                             b'[model_params]\nlearning_rate = "0,1"\n')
    _has(text, "lauf.toml", "learning_rate")


def test_a_cp1252_comment_in_a_config_names_file_line_and_byte(tmp_path: Path) -> None:
    text = _config(tmp_path, b'# Lauf f\xfcr Q3\ndataset = "mq2008"\n')
    _has(text, "lauf.toml", ":1", "0xfc")


def test_a_cr_only_config_is_refused_naming_the_file(tmp_path: Path) -> None:
    """TOML forbids a bare CR; a Mac Excel-era editor wrote the file with CR line ends."""
    text = _config(tmp_path, b'dataset = "mq2008"\rmodels = ["lightgbm-lambdarank"]\rseeds = '
                             b'"x"\r')
    assert "lauf.toml" in text, text


def test_a_config_ending_in_ctrl_z_is_refused_naming_the_file(tmp_path: Path) -> None:
    text = _config(tmp_path, b'dataset = "mq2008"\r\nseeds = "x"\r\n\x1a')
    assert "lauf.toml" in text, text


# ---------------------------------------------------------------- Python frames
def test_evaluate_on_a_frame_of_decimal_comma_scores_is_refused_naming_the_column() -> None:
    """``pd.read_csv(sep=";")`` without ``decimal=","`` leaves ``0,25`` as text."""
    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [1, 0, 0, 1],
                          "score": ["0,25", "0,5", "1,0", "0,75"]})
    _refusal(lambda: evaluate(frame, metrics="ndcg@10"), "score")


def test_evaluate_on_a_frame_of_decimal_comma_labels_is_refused_naming_the_column() -> None:
    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": [1, 1, 2, 2], "label": ["1,0", "0,0", "0,0", "2,0"],
                          "score": [0.25, 0.5, 1.0, 0.75]})
    _refusal(lambda: evaluate(frame, metrics="ndcg@10"), "label")


def test_evaluate_trec_run_frame_of_decimal_comma_scores_is_refused() -> None:
    from bench.metrics import evaluate_trec

    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, 0]})
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["0,4", "0,9"]})
    _refusal(lambda: evaluate_trec(qrels, run, metrics="map"), "score")


def test_float_qids_from_a_spreadsheet_frame_match_integer_qrels_or_are_said() -> None:
    """``pd.read_excel`` gives qid ``1.0`` when a column held a blank; qrels say ``1``: one
    query by value, or a refusal / warning naming the spelling; never a silent 0."""
    from bench.metrics import evaluate_trec

    qrels = pd.DataFrame({"qid": [1, 1, 2], "docno": ["a", "b", "c"], "rel": [1, 0, 1]})
    run = pd.DataFrame({"qid": [1.0, 1.0, 2.0], "docno": ["a", "b", "c"],
                        "score": [0.9, 0.1, 0.5]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, exc = call(lambda: evaluate_trec(qrels, run, metrics="map"))
    if exc is not None:
        _names(exc, "qid")
        return
    if got.metrics["map"] == pytest.approx(1.0):
        return
    assert any("1.0" in str(w.message) for w in caught), [str(w.message) for w in caught]


# ---------------------------------------------------------------- the Dask reader, same rule
@pytest.mark.parametrize("cell", ["#WERT!", "12.345.678", "1,23E+05"])
def test_the_dask_reader_refuses_a_spreadsheet_id_cell_as_the_local_one(tmp_path: Path,
                                                                        cell: str) -> None:
    """``convert --engine dask`` reads the same table by the same rule (computed in this
    process, no cluster): the file, the line and the column named."""
    pytest.importorskip("dask.dataframe")
    from tests.dask_kit import dask_ratings

    rows = _rows()
    rows[2] = f"1;{cell};3;1003"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    with pytest.raises(LtrbenchError) as err:
        dask_ratings(p, sep=";", **GERMAN)
    for w in (f"{p.name}:4", "Artikel", cell):
        assert w in str(err.value), str(err.value)


@pytest.mark.parametrize(("cell", "words"), [
    ("123\u00a0", ("no-break space", "U+00A0")), ("\u2007123", ("figure space", "U+2007")),
    ("u1\u3000", ("ideographic space", "U+3000")), ("#####", ("error value",)),
    ("1\u202f234", ("thousands",))])
def test_an_id_a_spreadsheet_padded_or_formatted_is_refused_naming_what_it_holds(
        tmp_path: Path, cell: str, words: tuple[str, ...]) -> None:
    """``123`` plus the no-break space Excel's TRIM keeps would be an item apart from 123."""
    rows = _rows()
    rows[2] = f"1;{cell};3;1003"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:4", "Artikel", *words)


def test_text_ids_with_inner_no_break_spaces_and_dashes_are_kept_as_written(
        tmp_path: Path) -> None:
    """Only a whole cell is a placeholder or an error value: ``A-1``, ``Käse\u00a0Gouda`` and
    ``#1 Bestseller`` are ids, numbered as texts."""
    names = ["A-1", "Käse\u00a0Gouda", "#1 Bestseller", "x-", "Preis 1,5 kg"]
    rows = [f"{u};{names[i - 1]};{(u * 3 + i) % 5 + 1};{1000 * u + i}"
            for u in range(1, 7) for i in range(1, 6)]
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    got = _load(p)
    assert sorted(got.items["external_id"]) == sorted(names)
    assert got.frame.shape[0] == 30


# ---------------------------------------------------------------- Excel's sep= line, every reader
@pytest.mark.parametrize("columns", [(0, 1, 2, 3), (0, 1)])
def test_a_sep_line_above_a_headerless_table_is_named_not_read_as_a_user(
        tmp_path: Path, columns: tuple[int, ...]) -> None:
    """Positions (no header): line 1 ``sep=;`` was 'beyond the 2 columns of line 1', or with
    implicit feedback a user ``sep=`` who rated an empty item."""
    from bench.data.tabular import load_ratings_table

    p = _write(tmp_path, ("sep=;\r\n" + "\r\n".join(_rows()) + "\r\n").encode())
    kw = dict(zip(("user", "item", "rating", "timestamp"), columns, strict=False))
    _refusal(lambda: load_ratings_table(p, sep=";", **kw), f"{p.name}:1", "sep=;",
             "separator line")


def test_the_dask_reader_names_a_sep_line_as_the_local_one(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    from tests.dask_kit import dask_ratings

    p = _write(tmp_path, ("sep=;\n" + "\n".join([HEADER, *_rows()]) + "\n").encode())
    _refusal(lambda: dask_ratings(p, sep=";", **GERMAN), f"{p.name}:1", "sep=;",
             "separator line")


def test_an_id_behind_a_spreadsheet_text_apostrophe_is_refused(tmp_path: Path) -> None:
    """``'007`` (a cell's formula-bar text, pasted) would be an item apart from ``7``."""
    rows = _rows()
    rows[2] = "1;'3;3;1003"
    p = _write(tmp_path, ("\n".join([HEADER, *rows]) + "\n").encode())
    _refusal(lambda: _load(p), f"{p.name}:4", "Artikel", "apostrophe")


@pytest.mark.parametrize("cell", ["#WERT!", "1.234.567", "4711\u00a0"])
def test_a_parquet_text_id_column_holding_a_spreadsheet_cell_is_refused_naming_row(
        tmp_path: Path, cell: str) -> None:
    p = tmp_path / "r.parquet"
    pd.DataFrame({"Benutzer": ["1", "1", "2"], "Artikel": ["4711", cell, "4712"],
                  "Bewertung": [4.0, 3.5, 2.0], "Zeitstempel": [1, 2, 3]}).to_parquet(p)
    from bench.data.tabular import load_ratings_table

    _refusal(lambda: load_ratings_table(p, **GERMAN), "r.parquet", "row 2", "Artikel")


@pytest.mark.parametrize(("kind", "data", "sep"), [
    ("qrels", b"1;0;a;1\n", "';'"), ("run", b"1;Q0;a;1;0,4;t\n", "';'"),
    ("qrels", b"1,0,a,1\n", "','")])
def test_a_csv_export_of_a_trec_file_names_its_separator(tmp_path: Path, kind: str, data: bytes,
                                                         sep: str) -> None:
    qrels, run = (data, RUN) if kind == "qrels" else (QRELS, data)
    res = _eval(tmp_path, qrels, run)
    name = "q.txt" if kind == "qrels" else "r.txt"
    assert refused(res, f"{name}:1", sep, "spaces or tabs") is None, res.err
